import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs, refFlags } from "../../core/shared-args.js";
import { listQueryFrom } from "../../list-options.js";
import { refLabel, resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderTraceReport } from "../../workbench/trace/render-trace-report.js";
import { explainArgs, parseExplainMode } from "../trace/trace-args.js";
import { readRuleSource, readDataDocument } from "../../workbench/rule-source.js";
import { evaluateLocally } from "../../../portable/workbench/rules-eval/local-eval.js";
import { buildTraceReport } from "../../../portable/workbench/trace/trace-report.js";
import { runImpact } from "../../../portable/workbench/rules-eval/impact.js";
import { renderImpact } from "../../workbench/rules-eval/impact-render.js";
import { LineageReader } from "../../../portable/workbench/trace/lineage-reader.js";
import { explainInputs } from "../../../portable/workbench/trace/input-sources.js";

/** `ddsctl rules eval <rule-file|-> (--context <id> | --data <file> | --all-contexts)`. */
export default defineCommand({
  command: "rules eval",
  description:
    "dry-run a draft rule (a rule body or a bare expression, JSON or YAML) against a context, a data document, or every context; nothing is saved",
  examples: [
    "ddsctl rules eval draft.json --context <contextId>",
    "ddsctl rules eval draft.yaml --data case.json",
    `echo '{"<=":[{"var":"Loan.ltv"},0.85]}' | ddsctl rules eval - --context case-1 --json`,
    "ddsctl rules eval draft.json --all-contexts --filter type=mortgage --against ltv-limit",
  ],
  args: {
    ruleFile: { type: "string", positional: true, required: true, placeholder: "rule-file", complete: "file", description: "rule body ({expression, ...} as POST /rules takes) or a bare expression; - reads stdin" },
    context: { ...refFlags.context, description: "evaluate against this stored context (name or contextId)" },
    data: { type: "string", placeholder: "file", complete: "file", description: "evaluate against a JSON/YAML document of dotted paths (offline: no database)" },
    allContexts: { type: "boolean", description: "evaluate against every stored context and count pass/fail" },
    filter: { type: "strings", placeholder: "expr", description: "with --all-contexts: only contexts matching (as contexts list --filter; repeatable)" },
    against: { ...refFlags.rule, description: "with --all-contexts: compare with this saved rule's current outcome and list the contexts that would flip" },
    ...explainArgs("full"),
    ...reportArgs,
  },
  async handler(args, ctx) {
    const { out } = ctx;
    const flags = args;
    const modes = [args.context !== undefined, args.data !== undefined, args.allContexts].filter(Boolean);
    if (modes.length !== 1) throw errors.usage("give exactly one of --context <context>, --data <file> and --all-contexts");
    if (!args.allContexts && (args.against !== undefined || args.filter.length > 0)) throw errors.usage("--against and --filter go with --all-contexts");
    const explain = parseExplainMode(args.explain);
    const rule = await readRuleSource(ctx.io, args.ruleFile);
    const header: [string, unknown][] = [["rule", rule.name ?? "(draft)"]];
    if (flags.data !== undefined) {
      const result = evaluateLocally(rule.expression, await readDataDocument(ctx.io, flags.data));
      if (out.options.json) return out.json(result);
      return renderTraceReport(out, buildTraceReport(result), { explain, paths: Boolean(flags.paths), header });
    }
    const service = await ctx.service();
    if (flags.allContexts) {
      const against = flags.against === undefined ? undefined : await service.getRule(await resolveRef(service, "rule", flags.against));
      // Only the cases the rule applies to count, as in the studio: the draft's context
      // types, else those of the saved rule it is compared with, else every case.
      const contextTypes = rule.contextTypes ?? against?.contextTypes ?? [];
      const report = await runImpact(service, { expression: rule.expression, contextTypes }, listQueryFrom({ filter: flags.filter }, "contexts"), against);
      if (out.options.json) return out.json(report);
      return renderImpact(out, report, rule.name ?? "draft");
    }
    const contextId = await resolveRef(service, "context", flags.context!);
    const result = await service.evaluateRule({ expression: rule.expression, contextId });
    if (out.options.json) return out.json(result);
    let inputs;
    if (flags.lineage) {
      inputs = await explainInputs(new LineageReader(service), contextId, result.evaluationTrace.inputs);
    }
    renderTraceReport(out, buildTraceReport(result, inputs), { explain, paths: Boolean(flags.paths), header, context: refLabel("context", flags.context!, contextId) });
  },
});
