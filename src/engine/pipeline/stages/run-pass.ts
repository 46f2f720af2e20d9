/** One resolution pass over a context, composed from the pure stages (docs/pipeline.md). */
import type { FieldLineage } from "../../../contract/schemas/index.js";
import type { CompiledModel } from "../../models/model-types.js";
import { decodeLineage } from "../../store/lineage-codec.js";
import type { PassInput, PassOutput, RecordState, ResolvedRecord } from "../types.js";
import { buildRecord } from "./build-record.js";
import { computeFields } from "./compute-fields.js";
import { createContextResolver } from "./context-resolver.js";
import { evaluateRules } from "./evaluate-rules.js";
import { sharedExpressionCache, type ExpressionCache } from "./expression-cache.js";
import { linkRecords } from "./link-records.js";
import { compareRecordIds, indexModels } from "./record-order.js";
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

/**
 * Runs a pass: resolve every field by its policy, link relationships, compute computed
 * fields in dependency order, validate resolved and computed values, build data and its
 * sha256, evaluate the rules. Pure and deterministic: the same input, with its arrays in
 * any order, gives byte-identical output (records by id, links by source/name/target,
 * evaluations by rule id).
 *
 * Incremental when `input.dirty` is given: only the dirty records are resolved from their
 * contributions (the only ones the input needs to carry); every other record starts from
 * its state in `input.before`. Links, computed fields and rules are worked out over all of
 * them, and a record is built again (data, hash, issues, lineage) only when it is dirty or
 * one of its values changed: the outcome is exactly that of a full pass, and `records`
 * lists just the records built again (all of them on a full pass).
 */
export function runPass(input: PassInput, options: RunPassOptions = {}): PassOutput {
  const cache = options.cache ?? sharedExpressionCache;
  const models = indexModels(input.models);
  const { dirty, before } = input;
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
  // Stages with nothing to do are skipped: a record-heavy context without relationships,
  // computed fields or rules is resolved record by record.
  const links = input.models.some((m) => m.relationships.length > 0) ? linkRecords(input.models, resolved, input.removals) : [];
  const computed = input.models.some((m) => m.computedOrder.length > 0 || m.fields.some((f) => f.computed))
    ? computeFields(input.models, resolved, links, cache)
    : [...resolved].sort((a, b) => compareRecordIds(a.record, b.record));
  const fresh = new Map<string, ResolvedFields>();
  for (const r of resolved) if (!dirty || dirty.has(r.record.id)) fresh.set(r.record.id, r);

  const records: ResolvedRecord[] = [];
  const states = new Map<string, RecordState>();
  for (const { record, values } of computed) {
    const model = models.get(record.modelId)!; // only records with a model were resolved
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
  }
  let evaluations: PassOutput["evaluations"] = [];
  if (input.rules.length > 0) {
    const view = computed.map((r) => {
      const s = states.get(r.record.id)!;
      return { id: s.record.id, modelId: s.record.modelId, data: s.data };
    });
    evaluations = evaluateRules(input.rules, createContextResolver(input, view, links), cache);
  }
  return { records, links, evaluations, states };
}
