import { defineCommand } from "../../core/define-command.js";
import { reportArgs, refs } from "../../core/shared-args.js";
import { collectPages } from "../../list-options.js";
import { refLabel, resolveRef } from "../../../portable/names/resolve-ref.js";
import { freshenHint } from "../../common/lifecycle-hints.js";
import { evaluationColumns } from "../../render/rules.js";
import { renderTraceReport } from "../../workbench/trace/render-trace-report.js";
import { explainArgs, parseExplainMode } from "./trace-args.js";
import { buildTraceReport } from "../../../portable/workbench/trace/trace-report.js";
import { LineageReader } from "../../../portable/workbench/trace/lineage-reader.js";
import { explainInputs } from "../../../portable/workbench/trace/input-sources.js";

/** `ddsctl trace <contextId> [rule]`. */
export default defineCommand({
  command: "trace",
  description:
    "show why a context's rules passed or failed: a summary, or one rule's evaluation tree (deciding branches marked) with each input's lineage",
  examples: [
    "ddsctl trace <contextId>",
    "ddsctl trace <contextId> dti-limit",
    "ddsctl trace <contextId> dti-limit --explain fails",
    "ddsctl trace <contextId> dti-limit --json > before.json",
  ],
  args: {
    context: refs.context,
    rule: { ...refs.rule, required: false, description: "rule name or ruleId: show its evaluation tree" },
    ...explainArgs("auto"),
    ...reportArgs,
  },
  async handler(args, ctx) {
    const { context: contextRef, rule: ruleRef } = args;
    const flags = args;
    const service = await ctx.service();
    const { out } = ctx;
    const contextId = await resolveRef(service, "context", contextRef);
    if (ruleRef !== undefined) {
      const explain = parseExplainMode(flags.explain);
      const evaluation = await service.getContextEvaluation(contextId, await resolveRef(service, "rule", ruleRef));
      let inputs;
      if (flags.lineage) {
        inputs = await explainInputs(new LineageReader(service), contextId, evaluation.evaluationTrace.inputs);
      }
      const report = buildTraceReport(evaluation, inputs);
      if (out.options.json) return out.json(report);
      // Only a stale evaluation needs the context's status: what brings it up to date depends on it.
      const freshen = evaluation.freshness === "resolved" ? undefined : freshenHint(contextRef, (await service.getContext(contextId)).status);
      return renderTraceReport(out, report, { explain, paths: Boolean(flags.paths), context: refLabel("context", contextRef, contextId), freshen });
    }
    const page = await collectPages({ all: true }, { limit: 500 }, (q) => service.listContextEvaluations(contextId, q));
    if (out.options.json) return out.json(page);
    await out.table(page.data, evaluationColumns(out, { brief: true }));
    const failed = page.data.filter((e) => !e.outcome).length;
    out.info(out.c.dim(`${page.data.length} evaluation(s), ${failed} failed; the tree of one: ddsctl trace ${contextRef} <rule>`));
  },
});
