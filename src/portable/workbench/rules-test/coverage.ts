/**
 * Branch coverage of a rule by a set of evaluations. The branches of an expression are
 * fixed by its shape; an evaluation exercises the ones its trace shows deciding:
 *
 * - `and` with n operands: `operand i false` (operand i was the first falsy one, so it
 *   decided false), for i = 0..n-1, and `all true`: n + 1 branches.
 * - `or` with n operands: `operand i true` for i = 0..n-1, and `all false`: n + 1.
 * - `if`/`?:` with m conditions: `condition j taken` (condition j was the first to hold)
 *   for j = 0..m-1, and `else taken` (no condition held; with or without an else
 *   argument): m + 1.
 * - `some`/`all`/`none`: `true` and `false` (the operator's outcome): 2.
 *
 * A branch is named `<path> <op>: <label>`, the path being where the operator sits
 * (`$` for the root, `and.1` for the second operand of a root `and`). Branches inside the
 * per-element logic of map/filter/all/… count once, hit by any element.
 */
import { joinNodePath, operationOf, preOrder, type TraceNode } from "../trace/trace-align.js";

/** An operator with branches, and its branch labels. */
export interface BranchPoint {
  path: string;
  op: string;
  labels: string[];
}

/** Coverage of one rule, or a total. */
export interface CoverageReport {
  covered: number;
  total: number;
  /** Covered/total as a percentage with one decimal; null when the rule has no branches. */
  percent: number | null;
  /** The branches no evaluation exercised, in expression order. */
  uncovered: string[];
}

const branchId = (path: string, op: string, label: string) => `${path} ${op}: ${label}`;

function labelsOf(op: string, n: number): string[] {
  const operands = (word: string) => Array.from({ length: n }, (_, i) => `operand ${i} ${word}`);
  if (op === "and") return n === 0 ? [] : [...operands("false"), "all true"];
  if (op === "or") return n === 0 ? [] : [...operands("true"), "all false"];
  if (op === "if" || op === "?:") {
    const m = Math.floor(n / 2);
    return m === 0 ? [] : [...Array.from({ length: m }, (_, j) => `condition ${j} taken`), "else taken"];
  }
  if (op === "some" || op === "all" || op === "none") return ["true", "false"];
  return [];
}

/** Every operator with branches, in pre-order of the expression. */
export function branchPoints(expression: unknown): BranchPoint[] {
  const out: BranchPoint[] = [];
  const walk = (expr: unknown, path: string) => {
    if (Array.isArray(expr)) {
      expr.forEach((x, i) => walk(x, joinNodePath(path, String(i))));
      return;
    }
    const operation = operationOf(expr);
    if (!operation) return;
    const labels = labelsOf(operation.op, operation.args.length);
    if (labels.length > 0) out.push({ path, op: operation.op, labels });
    operation.args.forEach((a, i) => walk(a, joinNodePath(path, `${operation.op}.${i}`)));
  };
  walk(expression, "$");
  return out;
}

/** The branch one evaluated node took, or undefined (not a branch point, or no decision). */
function branchTaken(node: TraceNode): string | undefined {
  const { op, passed } = node.step;
  const kids = node.children;
  const n = operationOf(node.expression)?.args.length ?? 0;
  if (op === "and" || op === "or") {
    const last = kids[kids.length - 1];
    if (!last) return undefined;
    const stopValue = op === "or";
    if (last.step.passed === stopValue) return `operand ${kids.length - 1} ${stopValue}`;
    return kids.length === n ? (op === "and" ? "all true" : "all false") : undefined;
  }
  if (op === "if" || op === "?:") {
    const branch = kids.find((k) => k.role === "branch");
    return branch?.arg !== undefined ? `condition ${(branch.arg - 1) / 2} taken` : "else taken";
  }
  if (op === "some" || op === "all" || op === "none") return passed ? "true" : "false";
  return undefined;
}

/** The ids of the branches exercised by the given aligned traces. */
export function branchesHit(roots: TraceNode[]): Set<string> {
  const hit = new Set<string>();
  for (const root of roots) {
    for (const node of preOrder(root)) {
      const label = branchTaken(node);
      if (label !== undefined) hit.add(branchId(node.path, node.step.op, label));
    }
  }
  return hit;
}

/** Rounds a ratio to a percentage with one decimal. */
export function percentOf(covered: number, total: number): number | null {
  return total === 0 ? null : Math.round((covered / total) * 1000) / 10;
}

/** The coverage of `expression` by evaluations with the given aligned traces. */
export function coverageOf(expression: unknown, roots: TraceNode[]): CoverageReport {
  const hit = branchesHit(roots);
  const all = branchPoints(expression).flatMap((p) => p.labels.map((l) => branchId(p.path, p.op, l)));
  const uncovered = all.filter((id) => !hit.has(id));
  const covered = all.length - uncovered.length;
  return { covered, total: all.length, percent: percentOf(covered, all.length), uncovered };
}
