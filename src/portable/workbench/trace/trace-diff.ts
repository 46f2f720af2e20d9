/**
 * Where two evaluations of a rule part ways. Nodes are matched by key (their place in
 * the expression plus element indexes), so the comparison is exact for the same rule and
 * degrades gracefully when a snapshot was taken of an older version.
 */
import type { EvaluationTrace } from "../../../contract/schemas/index.js";
import { stableJson } from "./expect-values.js";
import { alignTrace, preOrder, type TraceNode } from "./trace-align.js";

/** One node whose value differs (or that only one side evaluated). */
export interface NodeChange {
  path: string;
  op: string;
  old: unknown;
  new: unknown;
  /** False when the node was not evaluated on that side (a branch before it decided). */
  oldEvaluated: boolean;
  newEvaluated: boolean;
}

/** One input whose value differs. */
export interface InputChange {
  path: string;
  old: unknown;
  new: unknown;
  /** False when that side did not read the path at all. */
  oldRead: boolean;
  newRead: boolean;
}

/** The difference between an old and a new evaluation. */
export interface TraceDiff {
  outcome: { old: boolean; new: boolean };
  /**
   * The first node in pre-order whose value changed (usually the root, when the outcome
   * flipped), then at each step its first changed child, down to the origin: a changed
   * node none of whose children changed. Empty when nothing changed.
   */
  changes: NodeChange[];
  inputs: InputChange[];
}

const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

function change(key: string, o: TraceNode | undefined, n: TraceNode | undefined): NodeChange {
  return {
    path: key,
    op: (n ?? o)!.step.op,
    old: o ? (o.step.result ?? null) : null,
    new: n ? (n.step.result ?? null) : null,
    oldEvaluated: o !== undefined,
    newEvaluated: n !== undefined,
  };
}

function differs(o: TraceNode | undefined, n: TraceNode | undefined): boolean {
  if (!o || !n) return true;
  return o.step.op !== n.step.op || stableJson(o.step.result) !== stableJson(n.step.result);
}

/** The changed-node chain (see {@link TraceDiff.changes}). */
function changeChain(oldRoot: TraceNode, newRoot: TraceNode): NodeChange[] {
  const oldByKey = new Map(preOrder(oldRoot).map((n) => [n.key, n]));
  const newByKey = new Map(preOrder(newRoot).map((n) => [n.key, n]));
  // Nodes are visited in the new tree's pre-order; nodes only the old side evaluated count
  // as children of their (new) parent, after the new ones.
  const childrenOf = (key: string): string[] => {
    const n = newByKey.get(key);
    const o = oldByKey.get(key);
    const keys = (n?.children ?? []).map((c) => c.key);
    for (const c of o?.children ?? []) if (!newByKey.has(c.key)) keys.push(c.key);
    return keys;
  };
  const changed = (key: string) => differs(oldByKey.get(key), newByKey.get(key));
  const firstChanged = (key: string): string | undefined => {
    if (changed(key)) return key;
    for (const c of childrenOf(key)) {
      const found = firstChanged(c);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  let at = firstChanged("$");
  const chain: NodeChange[] = [];
  while (at !== undefined) {
    chain.push(change(at, oldByKey.get(at), newByKey.get(at)));
    at = childrenOf(at).find(changed);
  }
  return chain;
}

/** Inputs whose values differ, the new trace's order first, then paths only the old read. */
function inputChanges(oldInputs: Record<string, unknown>, newInputs: Record<string, unknown>): InputChange[] {
  const paths = [...Object.keys(newInputs), ...Object.keys(oldInputs).filter((p) => !own(newInputs, p))];
  return paths
    .filter((p) => !own(oldInputs, p) || !own(newInputs, p) || stableJson(oldInputs[p]) !== stableJson(newInputs[p]))
    .map((p) => ({ path: p, old: oldInputs[p] ?? null, new: newInputs[p] ?? null, oldRead: own(oldInputs, p), newRead: own(newInputs, p) }));
}

/** Compares two evaluations of a rule. */
export function diffTraces(old: { outcome: boolean; evaluationTrace: EvaluationTrace }, now: { outcome: boolean; evaluationTrace: EvaluationTrace }): TraceDiff {
  const align = (t: EvaluationTrace) => alignTrace(t.steps, t.expression);
  return {
    outcome: { old: old.outcome, new: now.outcome },
    changes: changeChain(align(old.evaluationTrace), align(now.evaluationTrace)),
    inputs: inputChanges(old.evaluationTrace.inputs ?? {}, now.evaluationTrace.inputs ?? {}),
  };
}
