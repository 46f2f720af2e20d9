import type { Evaluation, TraceStep } from "../../contract/schemas/index.js";
import type { Output } from "../output.js";
import { outcomeText, severityStyle } from "./rules.js";
import { statusStyle } from "./models.js";
import { formatValue } from "./values.js";

/** Colour functions the tree renderer uses (identity functions for plain text). */
export interface TraceColors {
  green(text: string): string;
  red(text: string): string;
  dim(text: string): string;
}

const PLAIN: TraceColors = { green: (s) => s, red: (s) => s, dim: (s) => s };

/** The text of one node, without its tree guide. */
function describeStep(step: TraceStep, c: TraceColors): string {
  // Literals and the "N more" marker are context, not decisions: dimmed, never red.
  if (step.op === "value") return c.dim(formatValue(step.result));
  if (step.op === "truncated") return c.dim(`… (${formatValue(step.result)} more element traces)`);
  let head = step.op;
  const args = step.args ?? [];
  if (step.op === "var") {
    head = `var ${String(args[0] ?? "")}`;
    if (args.length > 1) head += ` (default ${formatValue(args[1])})`;
  } else if (step.children.length === 0 && args.length > 0) {
    head += `(${args.map((a) => formatValue(a)).join(", ")})`;
  }
  const text = `${head} → ${formatValue(step.result)}`;
  return step.passed ? c.green(text) : c.red(text);
}

/**
 * Renders an evaluation trace as tree lines: one node per line, guides `├─ `, `└─ `,
 * `│  `; each node its op and value (`>= → true`), green when it passed and red when it
 * failed; `var` nodes show their path; literal nodes show just their value. Long arrays
 * are cut to 5 items. Pure, so tests can golden it with plain colours.
 */
export function renderTraceTree(steps: TraceStep | TraceStep[] | undefined, colors: TraceColors = PLAIN): string[] {
  const roots = steps === undefined ? [] : Array.isArray(steps) ? steps : [steps];
  const lines: string[] = [];
  const guide = (text: string) => (text ? colors.dim(text) : "");
  const walk = (step: TraceStep, lead: string, indent: string) => {
    lines.push(`${guide(lead)}${describeStep(step, colors)}`);
    const children = step.children ?? [];
    children.forEach((child, i) => {
      const last = i === children.length - 1;
      walk(child, `${indent}${last ? "└─ " : "├─ "}`, `${indent}${last ? "   " : "│  "}`);
    });
  };
  for (const root of roots) walk(root, "", "");
  return lines;
}

/**
 * `trace <contextId> <rule>`: the rule and evaluation header, the tree, the inputs the
 * expression read, then PASS/FAIL and any runtime error. `--json` prints the evaluation.
 */
export async function renderEvaluationTrace(out: Output, e: Evaluation): Promise<void> {
  if (out.options.json) return out.json(e);
  const t = e.evaluationTrace;
  out.fields([
    ["rule", `${e.rule.name} (${e.ruleId})`],
    ["category", e.rule.category],
    ["severity", severityStyle(out)(e.rule.severity)],
    ["context", e.contextId],
    ["freshness", statusStyle(out)(e.freshness)],
    ["ruleVersion", e.ruleVersion],
    ["computedAt", e.computedAt],
  ]);
  out.line();
  for (const line of renderTraceTree(t.steps, out.c)) out.line(line);
  const inputs = Object.entries(t.inputs ?? {}).map(([path, value]) => ({ path, value }));
  if (inputs.length > 0) {
    out.line();
    await out.table(inputs, [
      { header: "INPUT", get: (i) => i.path },
      { header: "VALUE", get: (i) => formatValue(i.value) },
    ]);
  }
  out.line();
  out.line(outcomeText(out, e.outcome));
  if (t.error) out.line(`${out.c.red("error:")} ${t.error}`);
}
