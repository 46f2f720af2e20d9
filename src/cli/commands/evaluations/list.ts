import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../core/define-command.js";
import { filterExample } from "../../core/list-args.js";
import { listArgs, refFlags } from "../../core/shared-args.js";
import { collectPages, listQueryFrom, renderPage } from "../../list-options.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { evaluationColumns } from "../../render/rules.js";

/** `ddsctl evaluations list --context <context> | --rule <rule>`. */
export default defineCommand({
  command: "evaluations list",
  description: "list rule evaluations of a context or of a rule; both flags show that one evaluation (filter: freshness, outcome, rule.severity, rule.category, …)",
  examples: [
    "ddsctl evaluations list --context case-42",
    "ddsctl evaluations list --rule min-loan --filter outcome=false --json",
    "ddsctl evaluations list --context case-42 --filter 'rule.severity[in]=high,critical'",
    filterExample("evaluations list", "evaluations", "--context case-42"),
  ],
  args: {
    context: { ...refFlags.context, description: "evaluations of this context (name or contextId)" },
    rule: { ...refFlags.rule, description: "evaluations of this rule (name or ruleId)" },
    ...listArgs("evaluations"),
  },
  async handler(args, ctx) {
    if (!args.context && !args.rule) throw errors.usage("give --context <context>, --rule <rule>, or both");
    const query = listQueryFrom(args, "evaluations");
    const service = await ctx.service();
    const contextId = args.context ? await resolveRef(service, "context", args.context) : undefined;
    const ruleId = args.rule ? await resolveRef(service, "rule", args.rule) : undefined;
    const { out } = ctx;
    if (contextId && ruleId) {
      const evaluation = await service.getContextEvaluation(contextId, ruleId);
      if (out.options.json) return out.json(evaluation);
      out.table([evaluation], evaluationColumns(out));
      out.info(out.c.dim(`the evaluation tree: ddsctl trace ${args.context} ${args.rule}`));
      return;
    }
    const page = await collectPages(args, query, (q) => (contextId ? service.listContextEvaluations(contextId, q) : service.listRuleEvaluations(ruleId!, q)));
    await renderPage(out, page, page.data, () => evaluationColumns(out, { context: !contextId }), "evaluations");
  },
});
