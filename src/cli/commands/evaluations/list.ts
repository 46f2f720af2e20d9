import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../command.js";
import { collectPages, listQueryFrom, withListOptions, renderPage, type ListFlags } from "../../list-options.js";
import { evaluationColumns } from "../../render/rules.js";
import { resolveRuleId } from "../rules/rule-ref.js";

/** `ddsctl evaluations list --context <id> | --rule <rule>`. */
export default defineCommand({
  path: ["evaluations", "list"],
  description: "list rule evaluations of a context or of a rule; both flags show that one evaluation (filter: freshness, outcome, rule.severity, rule.category, …)",
  examples: [
    "ddsctl evaluations list --context <contextId>",
    "ddsctl evaluations list --rule min-loan --filter outcome=false --json",
    "ddsctl evaluations list --context <contextId> --filter rule.severity[in]=high,critical",
  ],
  configure: (cmd) =>
    withListOptions(cmd.option("--context <contextId>", "evaluations of this context").option("--rule <rule>", "evaluations of this rule (name or ruleId)")),
  async run(ctx, _args, flags) {
    const contextId = flags.context as string | undefined;
    const ruleRef = flags.rule as string | undefined;
    if (!contextId && !ruleRef) throw errors.usage("give --context <contextId>, --rule <rule>, or both");
    const service = await ctx.service();
    const ruleId = ruleRef ? await resolveRuleId(service, ruleRef) : undefined;
    const { out } = ctx;
    if (contextId && ruleId) {
      const evaluation = await service.getContextEvaluation(contextId, ruleId);
      if (out.options.json) return out.json(evaluation);
      await out.table([evaluation], evaluationColumns(out));
      out.info(out.c.dim(`the evaluation tree: ddsctl trace ${contextId} ${ruleRef}`));
      return;
    }
    const f = flags as ListFlags;
    const page = await collectPages(f, listQueryFrom(f), (q) =>
      contextId ? service.listContextEvaluations(contextId, q) : service.listRuleEvaluations(ruleId!, q),
    );
    await renderPage(out, page, page.data, () => evaluationColumns(out, { context: !contextId }));
  },
});
