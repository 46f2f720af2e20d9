/**
 * One evaluation order for the computed fields of all models together: `Loan.dti` reads
 * `applicants.totalIncome`, which reads `employments.monthlyIncome`, so per-model orders
 * are not enough.
 */
import type { CompiledField, CompiledModel } from "../../models/model-types.js";
import { compareStrings } from "../../../portable/resolution/candidate.js";
import { pushAll } from "../../../portable/arrays.js";

/** A computed field with the model it belongs to. */
export interface ComputedNode {
  model: CompiledModel;
  field: CompiledField;
}

/** The global order, and the fields left out because they sit on a dependency cycle. */
export interface ComputedOrder {
  order: ComputedNode[];
  cyclic: ComputedNode[];
}

const nodeKey = (modelId: string, fieldId: string) => `${modelId}:${fieldId}`;

/**
 * Tarjan's strongly connected components of the graph `keys`/`edges`. With edges pointing
 * at dependencies, each component comes after everything it depends on. Members of a
 * component are sorted, so the result only depends on the graph and the order of `keys`.
 */
function components(keys: readonly string[], edges: (key: string) => readonly string[]): string[][] {
  const out: string[][] = [];
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const visit = (key: string): void => {
    index.set(key, index.size);
    low.set(key, index.get(key)!);
    stack.push(key);
    onStack.add(key);
    for (const dep of edges(key)) {
      if (!index.has(dep)) {
        visit(dep);
        low.set(key, Math.min(low.get(key)!, low.get(dep)!));
      } else if (onStack.has(dep)) {
        low.set(key, Math.min(low.get(key)!, index.get(dep)!));
      }
    }
    if (low.get(key) !== index.get(key)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== key);
    out.push(component.sort());
  }
  for (const key of keys) if (!index.has(key)) visit(key);
  return out;
}

/**
 * Orders every computed field of `models` so each comes after what it reads. Own fields
 * and `rel.field` paths are hard dependencies. A bare `rel` path reads the targets' whole
 * data, so it prefers to come after every computed field of the target model, but that
 * is a soft dependency: activation does not count it when refusing cycles, so where it
 * would close a cycle it is dropped (the data is then read without the fields not yet
 * computed). Fields on a cycle of hard dependencies, which activation refuses but a pass
 * must survive, are returned as `cyclic` instead of looping; fields downstream of them
 * are still ordered. Independent of the order of `models`.
 */
export function computedFieldOrder(models: readonly CompiledModel[]): ComputedOrder {
  const nodes = new Map<string, ComputedNode>();
  const byModel = new Map<string, string[]>();
  for (const model of [...models].sort((a, b) => compareStrings(a.modelId, b.modelId))) {
    for (const field of model.fields) {
      if (!field.computed) continue;
      const key = nodeKey(model.modelId, field.fieldId);
      nodes.set(key, { model, field });
      byModel.set(model.modelId, [...(byModel.get(model.modelId) ?? []), key]);
    }
  }
  const hard = new Map<string, string[]>();
  const soft = new Map<string, string[]>();
  for (const [key, { model, field }] of nodes) {
    const h: string[] = [];
    const s: string[] = [];
    for (const dep of field.computed?.deps ?? []) {
      if (dep.kind === "field") h.push(nodeKey(model.modelId, dep.fieldId));
      else if (dep.fieldId !== null) h.push(nodeKey(dep.targetModelId, dep.fieldId));
      else pushAll(s, byModel.get(dep.targetModelId) ?? []);
    }
    hard.set(key, h.filter((k) => nodes.has(k)));
    soft.set(key, s.filter((k) => nodes.has(k)));
  }

  const order: ComputedNode[] = [];
  const cyclic: ComputedNode[] = [];
  const all = (key: string) => [...hard.get(key)!, ...soft.get(key)!];
  for (const component of components([...nodes.keys()], all)) {
    // Within a component of all edges, only hard edges decide; soft ones closed the loop.
    const members = new Set(component);
    const inside = (key: string) => hard.get(key)!.filter((k) => members.has(k));
    for (const sub of components(component, inside)) {
      const isCycle = sub.length > 1 || hard.get(sub[0])!.includes(sub[0]);
      for (const key of sub) (isCycle ? cyclic : order).push(nodes.get(key)!);
    }
  }
  return { order, cyclic };
}
