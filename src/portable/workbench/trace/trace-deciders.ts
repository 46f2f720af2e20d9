/**
 * Which children decided a node's value: the nodes `trace` marks `◀ decided` and follows
 * for the deciding path. Only operators whose value one child settles have deciders; for
 * the rest (comparisons, arithmetic, map…) every evaluated argument matters equally.
 */
import type { TraceNode } from "./trace-align.js";

const ELEMENT_DECIDED = new Set(["all", "some", "none"]);
const UNARY = new Set(["!", "!!"]);

/** The last index in `children` matching `test`, or -1. */
function lastIndex(children: TraceNode[], test: (n: TraceNode) => boolean): number {
  for (let i = children.length - 1; i >= 0; i--) if (test(children[i])) return i;
  return -1;
}

/**
 * The indexes of the children that decided `node`:
 * - `and`: the first falsy operand, or the last one when all are truthy; `or`: the first
 *   truthy operand, or the last. The trace stops at the decider, so it is the last child.
 * - `if`/`?:`: the condition that chose and the branch it chose; the else branch when no
 *   condition held; the last condition when none held and there is no else.
 * - `all`/`some`/`none`: the element that settled it (the last evaluated element, or the
 *   "not traced" marker when it was past the trace cap); the array itself when empty.
 * - `!`/`!!`: their one argument.
 */
export function deciderIndexes(node: TraceNode): number[] {
  const { op } = node.step;
  const children = node.children;
  if (children.length === 0) return [];
  if (op === "and" || op === "or") return [children.length - 1];
  if (op === "if" || op === "?:") {
    const branch = lastIndex(children, (c) => c.role === "branch" || c.role === "else");
    if (branch >= 0) return children[branch].role === "branch" ? [branch - 1, branch] : [branch];
    return [lastIndex(children, (c) => c.role === "condition")].filter((i) => i >= 0);
  }
  if (ELEMENT_DECIDED.has(op)) {
    const element = lastIndex(children, (c) => c.role === "element" || c.role === "truncated");
    if (element >= 0) return [element];
    const source = lastIndex(children, (c) => c.role === "source");
    return source >= 0 ? [source] : [];
  }
  if (UNARY.has(op) && children.length === 1) return [0];
  return [];
}
