import type { InputDependency, InputExplanation, InputSource } from "../../../portable/workbench/trace/input-sources.js";
import type { TraceColors } from "./render-trace.js";
import { formatTraceValue } from "../../../portable/workbench/trace/trace-value.js";

const PLAIN: TraceColors = { green: (s) => s, red: (s) => s, dim: (s) => s };

/** A compact, cut-to-length JSON of a computed expression. */
function expressionText(expression: unknown): string {
  const text = JSON.stringify(expression) ?? "";
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

/**
 * One source as one line: which record (model, identity, id, relationship), its value,
 * and either the winning contribution (id, sourceType:sourceId, confidence, policy,
 * candidates) or the computed expression.
 */
export function sourceLine(s: InputSource, c: TraceColors = PLAIN): string {
  const who = [s.model, s.label, s.recordId].filter((x) => x.length > 0).join(" ");
  const via = s.via ? ` via ${s.via}` : "";
  const head = `${who}${via} → ${formatTraceValue(s.value)}`;
  if (s.computed) return `${head}  ${c.dim(`computed ${expressionText(s.computed.expression)}`)}`;
  if (s.field === null) return head;
  if (!s.contributionId) return `${head}  ${c.dim("← no contribution")}`;
  const plural = s.candidates === 1 ? "candidate" : "candidates";
  const detail = `${s.sourceType}:${s.sourceId}, confidence ${s.confidence}, ${s.policy}, ${s.candidates} ${plural}`;
  return `${head} ← ${s.contributionId} ${c.dim(detail)}`;
}

/** One dependency of a computed value (path = value) with its sources below it, indented. */
export function renderDependencyLines(d: InputDependency, indent: string, c: TraceColors = PLAIN): string[] {
  const lines: string[] = [];
  dependencyLines(d, indent, c, lines);
  return lines;
}

function dependencyLines(d: InputDependency, indent: string, c: TraceColors, lines: string[]): void {
  lines.push(`${indent}${d.path} = ${formatTraceValue(d.value)}`);
  for (const s of d.sources) sourceLines(s, `${indent}  `, c, lines);
}

function sourceLines(s: InputSource, indent: string, c: TraceColors, lines: string[]): void {
  lines.push(`${indent}${sourceLine(s, c)}`);
  for (const d of s.computed?.from ?? []) dependencyLines(d, `${indent}  `, c, lines);
}

/** Source lines with computed values unfolded below them, each prefixed with `indent`. */
export function renderSourceLines(sources: InputSource[], indent: string, c: TraceColors = PLAIN): string[] {
  const lines: string[] = [];
  for (const s of sources) sourceLines(s, indent, c, lines);
  return lines;
}

/**
 * The inputs section of a trace: each path the rule read with its value, then one line
 * per record it came from, computed fields unfolded into what they read (indented).
 */
export function renderInputLines(inputs: InputExplanation[], c: TraceColors = PLAIN): string[] {
  const lines: string[] = [];
  for (const input of inputs) {
    lines.push(`${input.path} = ${formatTraceValue(input.value)}${input.note ? `  ${c.dim(`(${input.note})`)}` : ""}`);
    for (const s of input.sources) sourceLines(s, "  ", c, lines);
  }
  return lines;
}
