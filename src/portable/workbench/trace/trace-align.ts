/**
 * Places every node of an evaluation trace in its rule expression. The engine's trace is
 * lazy (`and`, `or`, `if` keep only what they evaluated) and per-element (`all`, `some`…
 * keep one sub-tree per element), so a node's position among its siblings does not say
 * which argument it is; walking the expression beside the trace does. Every node gets a
 * path (`and.1.<=.0`), a key unique in the trace (`all.1[2].>=.0`), its role for its
 * parent, and whether it decided its parent's value.
 */
import type { TraceStep } from "../../../contract/schemas/index.js";
import { containsLogic, isLogic } from "../../json-logic/literal.js";
import { deciderIndexes } from "./trace-deciders.js";

/** What a node is to its parent operator. */
export type NodeRole =
  | "root"
  | "operand"
  | "condition"
  | "branch"
  | "else"
  | "source"
  | "initial"
  | "element"
  | "truncated";

/** One evaluated node of a trace, placed in its rule expression. */
export interface TraceNode {
  step: TraceStep;
  /** The sub-expression's place in the rule: `$` for the root, else e.g. `and.1.<=.0`. */
  path: string;
  /** `path` with element indexes (`all.1[2].>=.0`): unique within one trace. */
  key: string;
  role: NodeRole;
  /** Which argument of the parent's operation (or item of its array) this node evaluated. */
  arg?: number;
  /** The element index, for the per-element sub-trees of map/filter/reduce/all/some/none. */
  element?: number;
  /** True when this node decided its parent's value (see trace-deciders.ts). */
  decided: boolean;
  /** The sub-expression this node evaluated (undefined when the trace and rule disagree). */
  expression: unknown;
  children: TraceNode[];
}

/** Operators whose second argument runs once per element of the first. */
export const SCOPED_OPS = new Set(["map", "filter", "reduce", "all", "some", "none"]);

/** `base.segment`, where the root `$` contributes nothing. */
export function joinNodePath(base: string, segment: string): string {
  return base === "$" ? segment : `${base}.${segment}`;
}

/** An operation's name and argument list (the unary shorthand `{"!": x}` is `[x]`). */
export function operationOf(expression: unknown): { op: string; args: unknown[] } | undefined {
  if (!isLogic(expression)) return undefined;
  const op = Object.keys(expression)[0];
  const raw = expression[op];
  return { op, args: Array.isArray(raw) ? raw : [raw] };
}

interface Slot {
  /** Argument index, or undefined when the trace has more nodes than the rule explains. */
  arg?: number;
  role: NodeRole;
  element?: number;
}

/** Which argument each child step evaluated, for the operation `op` with `args`. */
function slotsFor(op: string, args: unknown[], children: TraceStep[]): Slot[] {
  if (op === "if" || op === "?:") return ifSlots(args.length, children);
  if (SCOPED_OPS.has(op)) {
    const slots: Slot[] = [];
    let at = 0;
    if (args.length > 0 && at < children.length) slots[at++] = { arg: 0, role: "source" };
    if (op === "reduce" && args.length > 2 && at < children.length) slots[at++] = { arg: 2, role: "initial" };
    for (let element = 0; at < children.length; at++, element++) {
      slots[at] = children[at].op === "truncated" ? { role: "truncated" } : { arg: 1, role: "element", element };
    }
    return slots;
  }
  if (op === "var") {
    // Literal var arguments show in the step's `args`; only computed ones leave nodes.
    const traced = args.map((a, i) => (containsLogic(a) ? i : -1)).filter((i) => i >= 0);
    return children.map((_, i) => ({ arg: traced[i], role: "operand" as const }));
  }
  return children.map((_, i) => ({ arg: i < args.length ? i : undefined, role: "operand" as const }));
}

/** `if`: conditions in pairs with their branches; a true condition is followed by its branch. */
function ifSlots(n: number, children: TraceStep[]): Slot[] {
  const slots: Slot[] = [];
  let arg = 0;
  for (let i = 0; i < children.length; i++) {
    if (arg < n - 1) {
      slots.push({ arg, role: "condition" });
      if (children[i].passed && i + 1 < children.length) {
        slots.push({ arg: arg + 1, role: "branch" });
        break;
      }
      arg += 2;
    } else {
      slots.push({ arg: arg < n ? arg : undefined, role: "else" });
      break;
    }
  }
  return slots;
}

function alignStep(step: TraceStep, expression: unknown, path: string, key: string, slot: Slot): TraceNode {
  const node: TraceNode = { step, path, key, role: slot.role, decided: false, expression, children: [] };
  if (slot.arg !== undefined) node.arg = slot.arg;
  if (slot.element !== undefined) node.element = slot.element;
  const children = step.children ?? [];
  if (children.length === 0) return node;
  const operation = operationOf(expression);
  if (operation === undefined) {
    // A non-constant array: one node per item, addressed by index alone.
    const items = Array.isArray(expression) ? expression : [];
    node.children = children.map((child, i) =>
      alignStep(child, items[i], joinNodePath(path, String(i)), joinNodePath(key, String(i)), { arg: i, role: "operand" }),
    );
  } else {
    const { op, args } = operation;
    const slots = slotsFor(op, args, children);
    node.children = children.map((child, i) => {
      const slot = slots[i] ?? { role: "operand" as const };
      const segment = `${op}.${slot.arg ?? `?${i}`}`;
      const elementKey = slot.element === undefined ? "" : `[${slot.element}]`;
      return alignStep(child, slot.arg === undefined ? undefined : args[slot.arg], joinNodePath(path, segment), joinNodePath(key, segment) + elementKey, slot);
    });
  }
  for (const i of deciderIndexes(node)) node.children[i].decided = true;
  return node;
}

/**
 * Aligns a trace with the expression it evaluated. Without the expression (or where the
 * two disagree) children are placed by position, so the result is always a full tree.
 */
export function alignTrace(steps: TraceStep, expression: unknown): TraceNode {
  return alignStep(steps, expression, "$", "$", { role: "root" });
}

/** Every node in pre-order (a node before its children, children in order). */
export function preOrder(root: TraceNode): TraceNode[] {
  const out: TraceNode[] = [];
  const walk = (n: TraceNode) => {
    out.push(n);
    for (const c of n.children) walk(c);
  };
  walk(root);
  return out;
}

/**
 * The deciding path: from the root, repeatedly the child that decided (for `if`, the
 * chosen branch rather than its condition), down to a node nothing below decided alone.
 */
export function decidingPath(root: TraceNode): TraceNode[] {
  const path = [root];
  let current = root;
  for (;;) {
    const deciders = current.children.filter((c) => c.decided);
    if (deciders.length === 0) return path;
    current = deciders[deciders.length - 1];
    path.push(current);
  }
}
