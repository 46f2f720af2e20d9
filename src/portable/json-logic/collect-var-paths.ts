/** Static dependency analysis: which top-level paths an expression reads, and where. */
import { MAX_EXPRESSION_DEPTH, containsLogic, isLogic } from "./literal.js";
import { joinPath } from "./runtime.js";
import { isWholeDataPath } from "./var-read.js";

/** Operators whose second argument runs per element, relative to the element. */
const ELEMENT_SCOPED = new Set(["map", "filter", "reduce", "all", "some", "none"]);

/** One static read: the path, and the node that reads it (`<=.0.var`, as problems are placed). */
export interface VarRead {
  path: string;
  at: string;
}

/** Hears each static read, and null for a read known only at run time (a whole-data or computed path). */
type Sink = (read: VarRead | null) => void;

function addStatic(key: unknown, at: string, into: Sink): void {
  if (typeof key !== "string" && typeof key !== "number") return;
  into(isWholeDataPath(key) ? null : { path: String(key), at });
}

/**
 * `missing` keys: an array first argument is the key list, else every argument is a key.
 * `argAt(i)` places argument i.
 */
function visitKeys(args: unknown[], argAt: (i: number) => string, into: Sink, depth: number): void {
  const list = Array.isArray(args[0]) && !containsLogic(args[0]);
  const keys = list ? (args[0] as unknown[]) : args;
  keys.forEach((key, i) => {
    const keyAt = list ? joinPath(argAt(0), String(i)) : argAt(i);
    if (containsLogic(key)) {
      into(null);
      visit(key, keyAt, into, depth + 1);
    } else addStatic(key, keyAt, into);
  });
}

function visit(node: unknown, at: string, into: Sink, depth = 0): void {
  // Past the depth the compiler refuses, nothing is collected rather than overflowing.
  if (depth > MAX_EXPRESSION_DEPTH) return into(null);
  const next = depth + 1;
  if (Array.isArray(node)) {
    node.forEach((item, i) => visit(item, joinPath(at, String(i)), into, next));
    return;
  }
  if (!isLogic(node)) return;
  const op = Object.keys(node)[0];
  const raw = node[op];
  const opAt = joinPath(at, op);
  const list = Array.isArray(raw);
  const args = list ? raw : [raw];
  const argAt = (i: number) => (list ? joinPath(opAt, String(i)) : opAt);
  if (op === "var") {
    if (containsLogic(args[0])) {
      into(null);
      visit(args[0], argAt(0), into, next);
    } else addStatic(args[0], opAt, into);
    args.slice(1).forEach((rest, i) => visit(rest, argAt(i + 1), into, next));
  } else if (op === "missing") {
    visitKeys(args, argAt, into, next);
  } else if (op === "missing_some") {
    visit(args[0], argAt(0), into, next);
    visitKeys([args[1]], () => argAt(1), into, next);
  } else if (ELEMENT_SCOPED.has(op)) {
    // The array argument (and reduce's initial value) are read in the outer scope.
    visit(args[0], argAt(0), into, next);
    if (op === "reduce") visit(args[2], argAt(2), into, next);
  } else {
    args.forEach((arg, i) => visit(arg, argAt(i), into, next));
  }
}

/**
 * Every static top-level read of an expression, in order, each with the node that reads
 * it: literal `var` paths (placed at the `var`) and literal `missing`/`missing_some` keys
 * (placed at the key). The same path read twice is listed twice. What
 * {@link collectVarPaths} leaves out is left out here too.
 */
export function collectVarReads(expression: unknown): VarRead[] {
  const out: VarRead[] = [];
  visit(expression, "", (read) => {
    if (read) out.push(read);
  });
  return out;
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
  visit(expression, "", (read) => {
    if (read) into.add(read.path);
  });
  return [...into];
}

/**
 * True when the top-level reads of an expression are not all in {@link collectVarPaths}: a
 * whole-data read (`""`) or a path computed at run time. What such an expression reads is
 * only known by running it.
 */
export function readsOpaquely(expression: unknown): boolean {
  let opaque = false;
  visit(expression, "", (read) => {
    if (read === null) opaque = true;
  });
  return opaque;
}
