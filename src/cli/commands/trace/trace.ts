import { defineCommand } from "../../command.js";
import { collectPages } from "../../list-options.js";
import { evaluationColumns } from "../../render/rules.js";
import { renderEvaluationTrace } from "../../render/trace.js";
import { resolveRuleId } from "../rules/rule-ref.js";

/** `ddsctl trace <contextId> [rule]`. */
export default defineCommand({
  path: ["trace"],
  description: "show why a context's rules passed or failed: a summary, or one rule's evaluation tree with its inputs",
  examples: ["ddsctl trace <contextId>", "ddsctl trace <contextId> min-loan", "ddsctl trace <contextId> <ruleId> --json"],
  configure: (cmd) => cmd.argument("<contextId>").argument("[rule]", "rule name or ruleId: show its evaluation tree"),
  async run(ctx, [contextId, ruleRef]) {
    const service = await ctx.service();
    const { out } = ctx;
    if (ruleRef !== undefined) {
      const evaluation = await service.getContextEvaluation(contextId, await resolveRuleId(service, ruleRef));
      return renderEvaluationTrace(out, evaluation);
    }
    const page = await collectPages({ all: true }, { limit: 500 }, (q) => service.listContextEvaluations(contextId, q));
    if (out.options.json) return out.json(page);
    await out.table(page.data, evaluationColumns(out, { brief: true }));
    const failed = page.data.filter((e) => !e.outcome).length;
    out.info(out.c.dim(`${page.data.length} evaluation(s), ${failed} failed; the tree of one: ddsctl trace ${contextId} <rule>`));
  },
});
