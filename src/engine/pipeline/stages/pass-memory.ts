/**
 * What an incremental pass may keep of the last one (its {@link PassMemory}), and what
 * changed since: the pieces of a pass that cost what changed rather than what the context holds.
 */
import type { CompiledModel } from "../../models/model-types.js";
import type { PassInput, PassLink, PassMemory, PassRecord } from "../types.js";
import type { LinkGraph, TargetsBySource } from "./link-graph.js";
import { relationshipKey } from "./link-records.js";

/** What changed since the memory's pass. */
export interface ChangesSince {
  memory: PassMemory;
  /** Models with a record dirty, new, gone, or whose state is not the memory's. */
  touched: Set<string>;
  /** Clean records whose state is not the memory's (a writer resolved them since). */
  stale: Set<string>;
}

/**
 * The input's memory when it is good for this pass (an incremental one, the same model
 * objects, the same removals), with what changed since; undefined otherwise.
 */
export function changesSince(input: PassInput, models: ReadonlyMap<string, CompiledModel>, removals: string): ChangesSince | undefined {
  const { memory, dirty, before } = input;
  if (!memory || !dirty || !before || memory.removals !== removals) return undefined;
  if (memory.models.length !== input.models.length) return undefined;
  const same = new Set(memory.models);
  if (!input.models.every((m) => same.has(m))) return undefined;
  const touched = new Set<string>();
  const stale = new Set<string>();
  const counts = new Map<string, number>();
  for (const r of input.records) {
    if (!models.has(r.modelId)) continue;
    counts.set(r.modelId, (counts.get(r.modelId) ?? 0) + 1);
    if (dirty.has(r.id)) touched.add(r.modelId);
    else if (before.get(r.id) !== memory.states.get(r.id)) {
      touched.add(r.modelId);
      stale.add(r.id);
    }
  }
  // Without a dirty or stale record, a model whose count differs lost records.
  for (const [modelId, n] of counts) if (memory.counts.get(modelId) !== n) touched.add(modelId);
  for (const modelId of memory.counts.keys()) if (!counts.has(modelId)) touched.add(modelId);
  return { memory, touched, stale };
}

/** The relationship names whose every relationship kept the memory's links (`groups`: this pass's links by relationship key). */
export function keptNames(models: readonly CompiledModel[], groups: ReadonlyMap<string, readonly PassLink[]>, memory: PassMemory): Set<string> {
  const kept = new Set<string>();
  const redone = new Set<string>();
  for (const m of models) {
    for (const rel of m.relationships) {
      const key = relationshipKey(m.modelId, rel.name);
      if (groups.get(key) === memory.links.get(key)) kept.add(rel.name);
      else redone.add(rel.name);
    }
  }
  for (const name of redone) kept.delete(name);
  return kept;
}

function sameTargets(a: readonly PassRecord[] | undefined, b: readonly PassRecord[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i].id !== b[i].id) return false;
  return true;
}

/** Source records whose targets differ from the memory's through a relationship name not kept. */
export function relinkedSources(graph: LinkGraph, kept: ReadonlySet<string>, memory: PassMemory): Set<string> {
  const out = new Set<string>();
  const names = new Set([...graph.byName.keys(), ...memory.graph.keys()]);
  for (const name of names) {
    if (kept.has(name)) continue;
    const now: TargetsBySource = graph.byName.get(name) ?? new Map();
    const then = memory.graph.get(name) ?? new Map<string, readonly PassRecord[]>();
    for (const [source, targets] of now) if (!sameTargets(targets, then.get(source))) out.add(source);
    for (const source of then.keys()) if (!now.has(source)) out.add(source);
  }
  return out;
}
