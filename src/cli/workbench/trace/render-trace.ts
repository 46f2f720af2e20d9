import type { Evaluation, TraceStep } from "../../../contract/schemas/index.js";
import type { Output } from "../../output/output.js";
import { alignTrace, preOrder, type TraceNode } from "../../../portable/workbench/trace/trace-align.js";
import { statusStyle } from "../../render/models.js";
import { outcomeText, severityStyle } from "../../render/rules.js";
import { formatTraceValue } from "../../../portable/workbench/trace/trace-value.js";

/** Colour functions the tree renderer uses (identity functions for plain text). */
export interface TraceColors {
  green(text: string): string;
  red(text: string): string;
  dim(text: string): string;
  yellow?(text: string): string;
}

/**
 * How much of the tree to show: `full` every node; `fails` only the deciding path and
 * failed nodes, passed siblings folded into a count; `auto` full when the tree has at
 * most {@link AUTO_FULL_LIMIT} nodes, else fails.
 */
export type ExplainMode = "full" | "fails" | "auto";

/** Trees up to this many nodes are shown whole under `--explain auto`. */
export const AUTO_FULL_LIMIT = 30;

/** Options of {@link renderTraceNodes}. */
export interface TraceRenderOptions {
  colors?: TraceColors;
  explain?: ExplainMode;
  /** Append each node's path (`@and.1`), the handle `rules test` expectValues use. */
  paths?: boolean;
  /** Array items shown per value before `… N more`. */
  maxItems?: number;
  /** The record of each element sub-tree, by node key (`[2 Applicant applicantId=a3]`): see element-records.ts. */
  elementLabels?: ReadonlyMap<string, string>;
}

const PLAIN: TraceColors = { green: (s) => s, red: (s) => s, dim: (s) => s };

/** The marker of a node that decided its parent's value. */
export const DECIDED_MARK = "◀ decided";

function describe(node: TraceNode, c: TraceColors, o: TraceRenderOptions): string {
  const step = node.step;
  const fmt = (v: unknown) => formatTraceValue(v, { maxItems: o.maxItems });
  const args = step.args ?? [];
  let text: string;
  // Literals and the "not traced" marker are context, not decisions: dimmed, never red.
  if (step.op === "value") text = c.dim(fmt(step.result));
  else if (step.op === "truncated") text = c.dim(`… ${fmt(step.result)} more elements (not traced)`);
  else if (step.op === "var") {
    const fallback = args.length > 1 ? ` (default ${fmt(args[1])})` : "";
    // The whole data (`{"var": ""}`, the element inside all/some/…) has no path to print.
    const path = args[0] === undefined || args[0] === null || args[0] === "" ? '""' : String(args[0]);
    text = `var ${path}${fallback} → ${fmt(step.result)}`;
  } else {
    const call = step.children.length === 0 && args.length > 0 ? `(${args.map(fmt).join(", ")})` : "";
    text = `${step.op}${call} → ${fmt(step.result)}`;
    text = step.passed ? c.green(text) : c.red(text);
  }
  if (node.element !== undefined) {
    const record = o.elementLabels?.get(node.key);
    text = `${c.dim(`[${node.element}${record ? ` ${record}` : ""}]`)} ${text}`;
  }
  if (node.decided) text += `  ${(c.yellow ?? c.dim)(DECIDED_MARK)}`;
  if (o.paths) text += `  ${c.dim(`@${node.key}`)}`;
  return text;
}

type Item = TraceNode | { hidden: number };

/** Under `fails`: the children worth showing, passed ones folded into counts. */
function visibleChildren(node: TraceNode): Item[] {
  if (!node.children.some((c) => c.decided)) return node.children;
  const items: Item[] = [];
  for (const child of node.children) {
    const keep = child.decided || !child.step.passed || child.role === "source" || child.role === "initial" || child.role === "truncated";
    const last = items[items.length - 1];
    if (keep) items.push(child);
    else if (last && "hidden" in last) last.hidden++;
    else items.push({ hidden: 1 });
  }
  return items;
}

/** The mode `auto` stands for on this tree. */
export function effectiveExplainMode(root: TraceNode, mode: ExplainMode = "auto"): "full" | "fails" {
  if (mode !== "auto") return mode;
  return preOrder(root).length <= AUTO_FULL_LIMIT ? "full" : "fails";
}

/**
 * Renders an aligned trace as tree lines: one node per line with guides `├─ `, `└─ `,
 * `│  `; each node its op and value (`<= → false`), green when it passed and red when
 * it failed, `var` nodes with their path, literals dimmed, element sub-trees prefixed
 * with their index (and their record, given `elementLabels`), and `◀ decided` on every node that decided its parent. Pure, so
 * tests golden it with plain colours.
 */
export function renderTraceNodes(root: TraceNode, options: TraceRenderOptions = {}): string[] {
  const c = options.colors ?? PLAIN;
  const fails = effectiveExplainMode(root, options.explain) === "fails";
  const lines: string[] = [];
  const walk = (item: Item, lead: string, indent: string, folding: boolean) => {
    if ("hidden" in item) {
      lines.push(`${c.dim(lead)}${c.dim(`… ${item.hidden} passed hidden`)}`);
      return;
    }
    lines.push(`${c.dim(lead)}${describe(item, c, options)}`);
    // Below a node nothing decided alone (a comparison, say), every argument is shown.
    const fold = folding && item.children.some((ch) => ch.decided);
    const children = fold ? visibleChildren(item) : item.children;
    children.forEach((child, i) => {
      const last = i === children.length - 1;
      walk(child, `${indent}${last ? "└─ " : "├─ "}`, `${indent}${last ? "   " : "│  "}`, fold);
    });
  };
  walk(root, "", "", fails);
  return lines;
}

/**
 * Renders raw trace steps (aligned with `expression` when given, so deciders and paths
 * are exact). Kept for callers that hold only an evaluation's steps.
 */
export function renderTraceTree(
  steps: TraceStep | TraceStep[] | undefined,
  colors: TraceColors = PLAIN,
  options: TraceRenderOptions & { expression?: unknown } = {},
): string[] {
  const roots = steps === undefined ? [] : Array.isArray(steps) ? steps : [steps];
  return roots.flatMap((s) => renderTraceNodes(alignTrace(s, options.expression), { ...options, colors }));
}

/**
 * A short evaluation view without lineage (header, tree, inputs, outcome), for callers
 * such as `demo` that show one trace; `trace <contextId> <rule>` renders the full report.
 */
export async function renderEvaluationTrace(out: Output, e: Evaluation): Promise<void> {
  if (out.options.json) return out.json(e);
  const t = e.evaluationTrace;
  out.fields([
    ["rule", `${e.rule.name} (${e.ruleId})`],
    ["severity", severityStyle(out)(e.rule.severity)],
    ["context", e.contextId],
    ["freshness", statusStyle(out)(e.freshness)],
  ]);
  out.line();
  for (const line of renderTraceTree(t.steps, out.c, { expression: t.expression })) out.line(line);
  const inputs = Object.entries(t.inputs ?? {});
  if (inputs.length > 0) {
    out.line();
    for (const [path, value] of inputs) out.line(`${path} = ${formatTraceValue(value)}`);
  }
  out.line();
  out.line(outcomeText(out, e.outcome));
  if (t.error) out.line(`${out.c.red("error:")} ${t.error}`);
}
