import { defineCommand } from "../../command.js";
import { collectPages } from "../../list-options.js";
import { evaluationColumns } from "../../render/rules.js";
import { renderTraceReport } from "../../render/trace-report.js";
import { parseExplainMode, resolveContextId } from "../../workbench/refs.js";
import { resolveRuleId } from "../rules/rule-ref.js";

/** `ddsctl trace <contextId> [rule]`. */
export default defineCommand({
  path: ["trace"],
  description:
    "show why a context's rules passed or failed: a summary, or one rule's evaluation tree (deciding branches marked) with each input's lineage",
  examples: [
    "ddsctl trace <contextId>",
    "ddsctl trace <contextId> dti-limit",
    "ddsctl trace <contextId> dti-limit --explain fails",
    "ddsctl trace <contextId> dti-limit --json > before.json",
  ],
  configure: (cmd) =>
    cmd
      .argument("<contextId>", "context id or name")
      .argument("[rule]", "rule name or ruleId: show its evaluation tree")
      .option("--explain <mode>", "full (every node), fails (the deciding path and failures, passed siblings counted) or auto (full for trees up to 30 nodes)", "auto")
      .option("--paths", "show each node's path (what rules test expectValues name)")
      .option("--no-lineage", "skip joining inputs to record lineage"),
  async run(ctx, [contextRef, ruleRef], flags) {
    const service = await ctx.service();
    const { out } = ctx;
    const contextId = await resolveContextId(service, contextRef);
    if (ruleRef !== undefined) {
      const explain = parseExplainMode(flags.explain);
      const evaluation = await service.getContextEvaluation(contextId, await resolveRuleId(service, ruleRef));
      const { buildTraceReport } = await import("../../workbench/trace-report.js");
      let inputs;
      if (flags.lineage !== false) {
        const { LineageReader } = await import("../../workbench/lineage-reader.js");
        const { explainInputs } = await import("../../workbench/input-sources.js");
        inputs = await explainInputs(new LineageReader(service), contextId, evaluation.evaluationTrace.inputs);
      }
      const report = buildTraceReport(evaluation, inputs);
      if (out.options.json) return out.json(report);
      return renderTraceReport(out, report, { explain, paths: Boolean(flags.paths) });
    }
    const page = await collectPages({ all: true }, { limit: 500 }, (q) => service.listContextEvaluations(contextId, q));
    if (out.options.json) return out.json(page);
    await out.table(page.data, evaluationColumns(out, { brief: true }));
    const failed = page.data.filter((e) => !e.outcome).length;
    out.info(out.c.dim(`${page.data.length} evaluation(s), ${failed} failed; the tree of one: ddsctl trace ${contextRef} <rule>`));
  },
});
