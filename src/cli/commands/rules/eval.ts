import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../command.js";
import { listQueryFrom } from "../../list-options.js";
import { renderTraceReport } from "../../render/trace-report.js";
import { parseExplainMode, resolveContextId } from "../../workbench/refs.js";
import { resolveRuleId } from "./rule-ref.js";

/** `ddsctl rules eval <rule-file|-> (--context <id> | --data <file> | --all-contexts)`. */
export default defineCommand({
  path: ["rules", "eval"],
  description:
    "dry-run a draft rule (a rule body or a bare expression, JSON or YAML) against a context, a data document, or every context; nothing is saved",
  examples: [
    "ddsctl rules eval draft.json --context <contextId>",
    "ddsctl rules eval draft.yaml --data case.json",
    `echo '{"<=":[{"var":"Loan.ltv"},0.85]}' | ddsctl rules eval - --context case-1 --json`,
    "ddsctl rules eval draft.json --all-contexts --filter type=mortgage --against ltv-limit",
  ],
  configure: (cmd) =>
    cmd
      .argument("<rule-file>", "rule body ({expression, ...} as POST /rules takes) or a bare expression; - reads stdin")
      .option("--context <contextId>", "evaluate against this stored context (id or name)")
      .option("--data <file>", "evaluate against a JSON/YAML document of dotted paths (offline: no database)")
      .option("--all-contexts", "evaluate against every stored context and count pass/fail")
      .option("--filter <expr>", "with --all-contexts: only contexts matching (as contexts list --filter; repeatable)", (v: string, prev: string[] = []) => [...prev, v])
      .option("--against <rule>", "with --all-contexts: compare with this saved rule's current outcome and list the contexts that would flip")
      .option("--explain <mode>", "full, fails or auto (see trace)", "full")
      .option("--paths", "show each node's path")
      .option("--no-lineage", "skip joining inputs to record lineage"),
  async run(ctx, [file], flags) {
    const { out } = ctx;
    const modes = ["context", "data", "allContexts"].filter((k) => flags[k] !== undefined && flags[k] !== false);
    if (modes.length !== 1) throw errors.usage("give exactly one of --context <id>, --data <file> and --all-contexts");
    if (!flags.allContexts && (flags.against !== undefined || flags.filter !== undefined)) throw errors.usage("--against and --filter go with --all-contexts");
    const explain = parseExplainMode(flags.explain);
    const { readRuleSource, readDataDocument } = await import("../../workbench/rule-source.js");
    const rule = await readRuleSource(file);
    const header: [string, unknown][] = [["rule", rule.name ?? "(draft)"]];
    if (flags.data !== undefined) {
      const { evaluateLocally } = await import("../../workbench/local-eval.js");
      const result = evaluateLocally(rule.expression, await readDataDocument(String(flags.data)));
      if (out.options.json) return out.json(result);
      const { buildTraceReport } = await import("../../workbench/trace-report.js");
      return renderTraceReport(out, buildTraceReport(result), { explain, paths: Boolean(flags.paths), header });
    }
    const service = await ctx.service();
    if (flags.allContexts) {
      const { runImpact } = await import("../../workbench/impact.js");
      const { renderImpact } = await import("../../workbench/impact-render.js");
      const against = flags.against === undefined ? undefined : await service.getRule(await resolveRuleId(service, String(flags.against)));
      const report = await runImpact(service, rule.expression, listQueryFrom({ filter: flags.filter as string[] | undefined }), against);
      if (out.options.json) return out.json(report);
      return renderImpact(out, report, rule.name ?? "draft");
    }
    const contextId = await resolveContextId(service, String(flags.context));
    const result = await service.evaluateRule({ expression: rule.expression, contextId });
    if (out.options.json) return out.json(result);
    const { buildTraceReport } = await import("../../workbench/trace-report.js");
    let inputs;
    if (flags.lineage !== false) {
      const { LineageReader } = await import("../../workbench/lineage-reader.js");
      const { explainInputs } = await import("../../workbench/input-sources.js");
      inputs = await explainInputs(new LineageReader(service), contextId, result.evaluationTrace.inputs);
    }
    renderTraceReport(out, buildTraceReport(result, inputs), { explain, paths: Boolean(flags.paths), header });
  },
});
