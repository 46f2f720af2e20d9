import type { Output } from "../../output/output.js";
import type { CandidateExplanation, FieldEvidence, RecordExplanation } from "../../../portable/workbench/explain/record-explain.js";
import type { TraceColors } from "../trace/render-trace.js";
import { renderDependencyLines } from "../trace/render-trace-inputs.js";
import { formatTraceValue } from "../../../portable/workbench/trace/trace-value.js";
import { pushAll } from "../../../portable/arrays.js";

const PLAIN: TraceColors = { green: (s) => s, red: (s) => s, dim: (s) => s };

/** `✓` picked, `·` competed and lost, `✗` not a candidate (superseded, below minConfidence). */
function candidateLine(k: CandidateExplanation, c: TraceColors): string {
  const mark = k.picked ? c.green("✓") : k.candidate ? "·" : c.dim("✗");
  const observed = k.observedAt ? ` observed ${k.observedAt}` : "";
  const head = `${mark} ${k.contributionId} ${k.sourceType}:${k.sourceId} ${formatTraceValue(k.value)} confidence ${k.confidence} received ${k.receivedAt}${observed}`;
  const why = k.picked ? c.green(`picked: ${k.reason}`) : k.candidate ? k.reason : c.dim(k.reason);
  return `${head} — ${why}`;
}

/** The lines of one field: value and policy, then each candidate (or the computation). */
export function fieldEvidenceLines(f: FieldEvidence, c: TraceColors = PLAIN): string[] {
  const competing = f.candidates.filter((k) => k.candidate).length;
  const settings = [f.policy, ...(f.minConfidence !== undefined ? [`minConfidence ${f.minConfidence}`] : []), ...(f.sourcePriority ? [`priority ${f.sourcePriority.join(" > ")}`] : [])];
  const count = f.computed ? "" : `, ${competing} candidate${competing === 1 ? "" : "s"}`;
  const lines = [`${f.field} = ${formatTraceValue(f.value)}  ${c.dim(`(${settings.join(", ")}${count})`)}`];
  if (f.computed) {
    lines.push(`  expression ${JSON.stringify(f.computed.expression)}`);
    for (const d of f.computed.reads) pushAll(lines, renderDependencyLines(d, "  ", c));
    return lines;
  }
  if (f.candidates.length === 0) lines.push(`  ${c.dim("no contribution has this field")}`);
  for (const k of f.candidates) lines.push(`  ${candidateLine(k, c)}`);
  if (f.lineage?.contributionId && f.winner && f.lineage.contributionId !== f.winner) {
    lines.push(`  ${c.dim(`the record's lineage still names ${f.lineage.contributionId}: the record is not resolved yet`)}`);
  }
  return lines;
}

/**
 * `records explain`: a header, then per field every candidate value with its
 * contribution, source, confidence and times, whether the policy picked it and why;
 * computed fields with their expression and the values it read.
 */
export function renderRecordExplanation(out: Output, e: RecordExplanation): void {
  out.fields([
    ["record", e.recordId],
    ["model", e.model],
    ["context", e.contextId],
    ["freshness", e.freshness],
  ]);
  for (const f of e.fields) {
    out.line();
    for (const line of fieldEvidenceLines(f, out.c)) out.line(line);
  }
}
