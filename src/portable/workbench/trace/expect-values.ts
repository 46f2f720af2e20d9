/**
 * `expectValues` of `rules test`: expected values of named sub-expressions.
 *
 * A reference is one of:
 * - a node path: `$` (the root), or segments joined by `.` (`and.1.<=.0`) or, JSON
 *   Pointer style, by `/` (`/and/1/<=/0`, `~1` for a `/` operator, `~0` for `~`). The
 *   segments walk the expression: an operator's name, then an argument index, and so on
 *   (an array literal holding logic takes an index alone). A trailing operator name only
 *   checks what is there: `and.1.<=` is the node `and.1`, which must be a `<=`. The unary
 *   shorthand `{"!": x}` has the one argument 0.
 *   Inside the per-element argument of map/filter/reduce/all/some/none (`all.1`) the
 *   value is the array of that node's values over the traced elements, unless an element
 *   is picked: `all.1[2]` (the third element's evaluation).
 * - `var:<path>`: the value the rule read for that input path (`var:Loan.dti`).
 *
 * `trace --paths` and `rules eval --paths` print every node's path.
 */
import { SCOPED_OPS, operationOf, preOrder, type TraceNode } from "./trace-align.js";

/** A resolved reference: the canonical node path and a matcher for node keys. */
interface NodeRef {
  path: string;
  key: RegExp;
  perElement: boolean;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function segmentsOf(ref: string): string[] {
  const text = ref.startsWith("$.") ? ref.slice(2) : ref;
  if (text === "" || text === "$" || text === "/") return [];
  if (text.includes(".")) return text.split(".");
  return (text.startsWith("/") ? text.slice(1) : text).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** Resolves a node path against the expression, or returns why it names nothing. */
export function resolveNodeRef(expression: unknown, ref: string): NodeRef | string {
  const segs = segmentsOf(ref);
  const canon: string[] = [];
  const key: string[] = [];
  let perElement = false;
  let expr = expression;
  for (let i = 0; i < segs.length; ) {
    const at = canon.join(".") || "$";
    const operation = operationOf(expr);
    let op: string | undefined;
    let size: number;
    if (operation) {
      if (segs[i] !== operation.op) return `expected the operator "${operation.op}" at ${at}, found "${segs[i]}"`;
      if (++i === segs.length) break;
      op = operation.op;
      size = operation.args.length;
    } else if (Array.isArray(expr)) {
      size = expr.length;
    } else {
      return `${at} is a literal: nothing is below it`;
    }
    const m = /^(\d+)(?:\[(\d+)\])?$/.exec(segs[i++]);
    if (!m || Number(m[1]) >= size) return `"${segs[i - 1]}" is not an argument index of ${at} (it has ${size})`;
    const index = Number(m[1]);
    const perElementArg = op !== undefined && SCOPED_OPS.has(op) && index === 1;
    if (m[2] !== undefined && !perElementArg) return `[${m[2]}] picks an element, but ${at} ${op ?? "array"} argument ${index} is not per-element logic`;
    const segment = op === undefined ? String(index) : `${op}.${index}`;
    canon.push(segment);
    key.push(escape(segment) + (perElementArg ? (m[2] !== undefined ? `\\[${m[2]}\\]` : "\\[\\d+\\]") : ""));
    if (perElementArg && m[2] === undefined) perElement = true;
    expr = op === undefined ? (expr as unknown[])[index] : operation!.args[index];
  }
  return { path: canon.join(".") || "$", key: new RegExp(`^${key.join("\\.") || "\\$"}$`), perElement };
}

/** What a reference found in one trace. */
export type RefValue = { found: true; value: unknown } | { found: false; reason: string };

/** The value a reference names in an aligned trace (see the module comment). */
export function valueAt(root: TraceNode, expression: unknown, ref: string): RefValue {
  const nodes = preOrder(root);
  if (ref.startsWith("var:")) {
    const path = ref.slice(4);
    const read = nodes.find((n) => n.step.op === "var" && String(n.step.args?.[0] ?? "") === path);
    return read ? { found: true, value: read.step.result ?? null } : { found: false, reason: `the rule did not read ${path}` };
  }
  const resolved = resolveNodeRef(expression, ref);
  if (typeof resolved === "string") return { found: false, reason: resolved };
  const matches = nodes.filter((n) => n.path === resolved.path && resolved.key.test(n.key));
  if (resolved.perElement) return { found: true, value: matches.map((n) => n.step.result ?? null) };
  if (matches.length === 0) return { found: false, reason: `${ref} was not evaluated (a branch before it decided)` };
  return { found: true, value: matches[0].step.result ?? null };
}

/** JSON with sorted keys: equal values give equal text. */
export function stableJson(value: unknown): string {
  if (value === undefined) return "null";
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Checks every expected value; returns one message per mismatch. */
export function checkExpectedValues(root: TraceNode, expression: unknown, expected: Record<string, unknown>): string[] {
  const failures: string[] = [];
  for (const [ref, want] of Object.entries(expected)) {
    const got = valueAt(root, expression, ref);
    if (!got.found) failures.push(`${ref}: ${got.reason}`);
    else if (stableJson(got.value) !== stableJson(want)) failures.push(`expected ${ref} = ${stableJson(want)}, got ${stableJson(got.value)}`);
  }
  return failures;
}
