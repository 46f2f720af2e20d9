import type { Output } from "../../output/output.js";
import { isStoredEvaluation, alignEvaluation, type TraceReport } from "../../../portable/workbench/trace/trace-report.js";
import { statusStyle } from "../../render/models.js";
import { outcomeText, severityStyle } from "../../render/rules.js";
import { renderTraceNodes, type ExplainMode } from "./render-trace.js";
import { renderInputLines } from "./render-trace-inputs.js";
import { elementLabels as elementLabelsOf } from "../../../portable/workbench/trace/element-records.js";

/** Options of {@link renderTraceReport}. */
export interface TraceReportOptions {
  explain?: ExplainMode;
  paths?: boolean;
  /** Header lines for a dry run (`rules eval`), which names no stored rule. */
  header?: [string, unknown][];
  /** The context as the user named it (`okafor-purchase (<id>)`); its id otherwise. */
  context?: string;
  /** What brings a stale evaluation up to date (depends on the context's status). */
  freshen?: string;
}

/** The header of a stored evaluation, or of a dry run. */
function headerOf(out: Output, report: TraceReport, options: TraceReportOptions): [string, unknown][] {
  const e = report.evaluation;
  if (!isStoredEvaluation(e)) {
    const where: [string, unknown][] = e.contextId ? [["context", options.context ?? e.contextId]] : [["data", "document of dotted paths"]];
    if (e.asOf) where.push(["asOf", e.asOf]);
    return [...(options.header ?? []), ...where];
  }
  return [
    ["rule", `${e.rule.name} (${e.ruleId})`],
    ["severity", severityStyle(out)(e.rule.severity)],
    ["context", options.context ?? e.contextId],
    ["freshness", statusStyle(out)(e.freshness)],
    ["ruleVersion", e.ruleVersion],
    ["computedAt", e.computedAt],
  ];
}

/**
 * The text of `trace <contextId> <rule>` and `rules eval`: header, the evaluation tree
 * (`--explain`), the inputs with where each value came from, then PASS/FAIL and any
 * runtime error.
 */
export function renderTraceReport(out: Output, report: TraceReport, options: TraceReportOptions = {}): void {
  const trace = report.evaluation.evaluationTrace;
  out.fields(headerOf(out, report, options));
  out.line();
  const root = alignEvaluation(trace);
  const elementLabels = elementLabelsOf(root, report.inputs);
  for (const line of renderTraceNodes(root, { colors: out.c, explain: options.explain, paths: options.paths, elementLabels })) out.line(line);
  if (report.inputs.length > 0) {
    out.line();
    out.line(out.c.dim("inputs:"));
    for (const line of renderInputLines(report.inputs, out.c)) out.line(`  ${line}`);
  }
  out.line();
  out.line(outcomeText(out, report.evaluation.outcome));
  if (trace.error) out.line(`${out.c.red("error:")} ${trace.error}`);
  const e = report.evaluation;
  if (isStoredEvaluation(e) && e.freshness !== "resolved") {
    const freshen = options.freshen ?? `ddsctl pipeline run ${e.contextId} brings it up to date`;
    out.info(out.c.yellow(`this evaluation is ${e.freshness}: the context changed since it was computed; ${freshen}`));
  }
}
