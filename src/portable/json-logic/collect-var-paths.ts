/** Static dependency analysis: which top-level paths an expression reads. */
import { MAX_EXPRESSION_DEPTH, containsLogic, isLogic } from "./literal.js";
import { isWholeDataPath } from "./var-read.js";

/** Operators whose second argument runs per element, relative to the element. */
const ELEMENT_SCOPED = new Set(["map", "filter", "reduce", "all", "some", "none"]);

function addStatic(key: unknown, into: Set<string>): void {
  if (typeof key !== "string" && typeof key !== "number") return;
  if (!isWholeDataPath(key)) into.add(String(key));
}

/** `missing` keys: an array first argument is the key list, else every argument is a key. */
function visitKeys(args: unknown[], into: Set<string>, depth: number): void {
  const keys = Array.isArray(args[0]) && !containsLogic(args[0]) ? (args[0] as unknown[]) : args;
  for (const key of keys) {
    if (containsLogic(key)) visit(key, into, depth + 1);
    else addStatic(key, into);
  }
}

function visit(node: unknown, into: Set<string>, depth = 0): void {
  // Past the depth the compiler refuses, nothing is collected rather than overflowing.
  if (depth > MAX_EXPRESSION_DEPTH) return;
  const next = depth + 1;
  if (Array.isArray(node)) {
    for (const item of node) visit(item, into, next);
    return;
  }
  if (!isLogic(node)) return;
  const op = Object.keys(node)[0];
  const raw = node[op];
  const args = Array.isArray(raw) ? raw : [raw];
  if (op === "var") {
    if (containsLogic(args[0])) visit(args[0], into, next);
    else addStatic(args[0], into);
    for (const rest of args.slice(1)) visit(rest, into, next);
  } else if (op === "missing") {
    visitKeys(args, into, next);
  } else if (op === "missing_some") {
    visit(args[0], into, next);
    visitKeys([args[1]], into, next);
  } else if (ELEMENT_SCOPED.has(op)) {
    // The array argument (and reduce's initial value) are read in the outer scope.
    visit(args[0], into, next);
    if (op === "reduce") visit(args[2], into, next);
  } else {
    for (const arg of args) visit(arg, into, next);
  }
}

/**
 * The static top-level paths an expression reads, in order of first appearance, without
 * duplicates: literal `var` paths and literal `missing`/`missing_some` keys. Paths inside
 * the per-element logic of map/filter/reduce/all/some/none are relative to the elements
 * and left out; their array argument is included. Whole-data reads (`""`) and computed
 * paths are left out, but `var`s used to compute a path are included.
 */
export function collectVarPaths(expression: unknown): string[] {
  const into = new Set<string>();
  visit(expression, into);
  return [...into];
}
