/** One resolution pass over a context, composed from the pure stages (docs/pipeline.md). */
import type { FieldLineage } from "../../../contract/schemas/index.js";
import type { CompiledModel } from "../../models/model-types.js";
import { decodeLineage } from "../../store/lineage-codec.js";
import type { PassEvaluation, PassInput, PassMemory, PassOutput, PassRecord, PassRule, RecordState, ResolvedRecord } from "../types.js";
import { buildRecord } from "./build-record.js";
import { computeChanged, computesStatically } from "./compute-changed.js";
import { computeFields } from "./compute-fields.js";
import { computedFieldOrder } from "./computed-order.js";
import { contextResolverOver, type ContextView } from "./context-resolver.js";
import { compareRules, evaluateRule } from "./evaluate-rules.js";
import { sharedExpressionCache, type ExpressionCache } from "./expression-cache.js";
import { createLinkGraph, type LinkGraph } from "./link-graph.js";
import { linkRelationships, relationshipKey, type LinkedRecords } from "./link-records.js";
import { createModelIndex } from "./model-index.js";
import { changesSince, keptNames, relinkedSources, type ChangesSince } from "./pass-memory.js";
import { compareRecordAge, compareRecordIds, indexModels, type RecordValues } from "./record-order.js";
import { resolveRecords, type ResolvedFields } from "./resolve-records.js";
import { sameValues } from "./same-values.js";

/** Options of {@link runPass}. */
export interface RunPassOptions {
  /** Where compiled rules and computed fields are kept (default: one shared LRU). */
  cache?: ExpressionCache;
}

/** The lineage of a clean record's own fields, from its state (decoded from the stored text when only that is known). */
function baseLineageOf(model: CompiledModel, state: RecordState): Record<string, FieldLineage> {
  if (state.baseLineage) return state.baseLineage;
  const stored = decodeLineage(state.lineage);
  const out: Record<string, FieldLineage> = {};
  for (const field of model.fields) if (!field.computed && stored[field.name]) out[field.name] = stored[field.name];
  return out;
}

/** The link stage, keeping the memory's links of each relationship whose two models are untouched. */
function link(input: PassInput, resolved: readonly RecordValues[], changes: ChangesSince | undefined): LinkedRecords {
  if (!input.models.some((m) => m.relationships.length > 0)) return { groups: new Map(), links: [] };
  if (!changes) return linkRelationships(input.models, resolved, input.removals);
  const { memory, touched } = changes;
  return linkRelationships(input.models, resolved, input.removals, {
    links: (modelId, rel) => (touched.has(modelId) || touched.has(rel.targetModelId) ? undefined : memory.links.get(relationshipKey(modelId, rel.name))),
    sorted: memory.sorted,
  });
}

/**
 * The compute stage. With memory, and computed fields that read only what they declare,
 * only records whose inputs changed are computed again (compute-changed.ts); otherwise
 * every record is.
 */
function compute(
  input: PassInput,
  base: readonly ResolvedFields[],
  graph: LinkGraph,
  changes: ChangesSince | undefined,
  relinked: ReadonlySet<string>,
  cache: ExpressionCache,
): RecordValues[] {
  if (!input.models.some((m) => m.computedOrder.length > 0 || m.fields.some((f) => f.computed))) return [...base];
  if (!changes) return computeFields(input.models, base, [], cache, graph);
  const order = computedFieldOrder(input.models);
  if (!computesStatically(input.models, order)) return computeFields(input.models, base, [], cache, graph);
  const { memory, stale } = changes;
  const dirty = input.dirty!;
  const before = input.before!;
  const fresh = new Set<string>();
  const changed = new Set<string>();
  const records: RecordValues[] = [];
  for (const r of base) {
    const id = r.record.id;
    if (dirty.has(id) || stale.has(id)) {
      fresh.add(id);
      const then = memory.states.get(id);
      // A dirty record whose own values did not change changes only if what it reads did.
      if (stale.has(id) || !then || !sameValues(r.values, then.base)) changed.add(id);
      records.push(r);
    } else {
      records.push({ record: r.record, values: before.get(id)!.values });
    }
  }
  const previous = (id: string) => (dirty.has(id) ? memory.states.get(id)?.values : before.get(id)?.values);
  return computeChanged(input.models, records, graph, cache, { previous, changed, fresh, relinked }, order);
}

/** The records of each model oldest first, built when a rule first reads the model (or kept from the memory). */
function orderedView(records: readonly RecordValues[], states: ReadonlyMap<string, RecordState>, changes: ChangesSince | undefined) {
  const ordered = new Map<string, readonly PassRecord[]>();
  let byModel: Map<string, PassRecord[]> | undefined;
  const view: ContextView = {
    ofModel: (modelId) => {
      let list = ordered.get(modelId);
      if (list) return list;
      const kept = changes && !changes.touched.has(modelId) ? changes.memory.ordered.get(modelId) : undefined;
      if (kept) list = kept;
      else {
        if (!byModel) {
          byModel = new Map();
          for (const { record } of records) {
            let group = byModel.get(record.modelId);
            if (!group) byModel.set(record.modelId, (group = []));
            group.push(record);
          }
        }
        list = (byModel.get(modelId) ?? []).sort(compareRecordAge);
      }
      ordered.set(modelId, list);
      return list;
    },
    data: (id) => states.get(id)?.data,
  };
  return { view, ordered };
}

/**
 * The evaluate stage. A rule evaluated by the memory's pass with the same rule object, in
 * the same context, none of whose read models changed, keeps its evaluation: it would
 * read the same values.
 */
function evaluate(
  input: PassInput,
  graph: LinkGraph,
  view: ContextView,
  changes: ChangesSince | undefined,
  changedModels: ReadonlySet<string>,
  contextText: string,
  cache: ExpressionCache,
): { evaluations: PassEvaluation[]; kept: PassMemory["evaluations"] } {
  const kept = new Map<string, { rule: PassRule; evaluation: PassEvaluation; reads: ReadonlySet<string> | null }>();
  let reads: Set<string> | null = new Set();
  const resolver = contextResolverOver(input.context, createModelIndex(input.models), graph, view, (modelId) => {
    if (modelId === null) reads = null;
    else reads?.add(modelId);
  });
  const evaluations = [...input.rules].sort(compareRules).map((rule) => {
    const then = changes?.memory.context === contextText ? changes.memory.evaluations.get(rule.id) : undefined;
    if (then && then.rule === rule && then.reads && ![...then.reads].some((m) => changedModels.has(m))) {
      kept.set(rule.id, then);
      return then.evaluation;
    }
    reads = new Set();
    const evaluation = evaluateRule(rule, resolver, cache);
    kept.set(rule.id, { rule, evaluation, reads });
    return evaluation;
  });
  return { evaluations, kept };
}

/**
 * Runs a pass: resolve every field by its policy, link relationships, compute computed
 * fields in dependency order, validate resolved and computed values, build data and its
 * sha256, evaluate the rules. Pure and deterministic: the same input, with its arrays in
 * any order, gives byte-identical output (records by id, links by source/name/target,
 * evaluations by rule id).
 *
 * Incremental when `input.dirty` is given: only the dirty records are resolved from their
 * contributions (the only ones the input needs to carry); every other record starts from
 * its state in `input.before`. With `input.memory` (what the last pass left) a stage keeps
 * what nothing it depends on changed: a relationship's links, the link graph, a record's
 * computed values, a rule's evaluation. A record is built again (data, hash, issues,
 * lineage) only when it is dirty or one of its values changed: the outcome is exactly that
 * of a full pass, and `records` lists just the records built again (all of them on a full
 * pass).
 */
export function runPass(input: PassInput, options: RunPassOptions = {}): PassOutput {
  const cache = options.cache ?? sharedExpressionCache;
  const models = indexModels(input.models);
  const { dirty, before } = input;
  const removals = JSON.stringify(input.removals);
  const changes = changesSince(input, models, removals);
  const resolved: ResolvedFields[] = resolveRecords(input, dirty);
  if (dirty) {
    for (const record of input.records) {
      if (dirty.has(record.id) || !models.has(record.modelId)) continue;
      const prev = before?.get(record.id);
      // The store hands a clean record over with its state, always: without one it would be lost.
      if (!prev) throw new Error(`incremental pass: clean record ${record.id} has no state`);
      resolved.push({ record, values: prev.base, lineage: {} });
    }
  }
  const linked = link(input, resolved, changes);
  const kept = changes ? keptNames(input.models, linked.groups, changes.memory) : undefined;
  const graph = createLinkGraph(
    resolved.map((r) => r.record),
    linked.links,
    changes && kept ? { names: kept, from: changes.memory.graph } : undefined,
  );
  const relinked = changes && kept ? relinkedSources(graph, kept, changes.memory) : new Set<string>();
  const computed = compute(input, resolved, graph, changes, relinked, cache);
  const fresh = new Map<string, ResolvedFields>();
  for (const r of resolved) if (!dirty || dirty.has(r.record.id)) fresh.set(r.record.id, r);

  const records: ResolvedRecord[] = [];
  const states = new Map<string, RecordState>();
  const counts = new Map<string, number>();
  const changedModels = new Set(changes?.touched);
  for (const { record, values } of computed) {
    const model = models.get(record.modelId)!; // only records with a model were resolved
    counts.set(record.modelId, (counts.get(record.modelId) ?? 0) + 1);
    const own = fresh.get(record.id);
    const prev = before?.get(record.id);
    if (!own && prev && sameValues(values, prev.values)) {
      // Clean, and nothing it computes from changed: as the last pass left it.
      states.set(record.id, prev);
      continue;
    }
    const contributed = own ? own.lineage : baseLineageOf(model, prev!);
    const built = buildRecord(model, record, values, own ? own.values : prev!.base, contributed);
    records.push(built.out);
    states.set(record.id, built.state);
    changedModels.add(record.modelId);
  }
  records.sort(compareRecordIds);
  const contextText = JSON.stringify(input.context);
  const { view, ordered } = orderedView(computed, states, changes);
  const { evaluations, kept: evaluated } =
    input.rules.length > 0 ? evaluate(input, graph, view, changes, changedModels, contextText, cache) : { evaluations: [], kept: new Map() };
  const memory: PassMemory = {
    models: input.models,
    states,
    counts,
    removals,
    context: contextText,
    links: linked.groups,
    sorted: linked.links,
    graph: graph.byName,
    ordered,
    evaluations: evaluated,
  };
  return { records, links: linked.links, evaluations, states, memory, keptLinks: kept ?? new Set() };
}
