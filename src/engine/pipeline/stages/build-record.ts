/** The last step of a pass for one record: its row (data, sha256, issues, lineage) from its values. */
import type { FieldLineage } from "../../../contract/schemas/index.js";
import type { CompiledModel } from "../../models/model-types.js";
import { encodeLineage, usualPolicy } from "../../store/lineage-codec.js";
import type { PassRecord, RecordState, ResolvedRecord } from "../types.js";
import { computedLineage } from "./compute-fields.js";
import { buildRecordData } from "./record-data.js";
import { sha256Of } from "./record-hash.js";
import { validateValues } from "./validate-values.js";

const usualPolicies = new WeakMap<CompiledModel, string>();

/**
 * The policy a model's records store once in their lineage: the one most of its fields
 * use (computed ones aside), worked out once per compiled definition, so that every writer
 * of its records stores the same text.
 */
export function modelLineagePolicy(model: CompiledModel): string {
  let usual = usualPolicies.get(model);
  if (usual === undefined) usualPolicies.set(model, (usual = usualPolicy(model.fields.filter((f) => !f.computed).map((f) => f.resolution.policy))));
  return usual;
}

/** A record built: what a pass reports of it and the state the next pass starts from. */
export interface BuiltRecord {
  out: ResolvedRecord;
  state: RecordState;
}

/**
 * Builds a record from every value it holds (`values`, computed fields included), its own
 * fields' values (`base`) and their lineage (`contributed`, by name): the data by current
 * field name, its hash, the validation issues, the lineage of every field. Every pass, and
 * an ingest that resolves a new record as it writes it (resolve-alone.ts), builds a record
 * this one way, so the two give the same bytes.
 */
export function buildRecord(
  model: CompiledModel,
  record: PassRecord,
  values: Record<string, unknown>,
  base: Record<string, unknown>,
  contributed: Record<string, FieldLineage>,
): BuiltRecord {
  const lineage: Record<string, FieldLineage> = {};
  for (const field of model.fields) {
    if (field.computed) lineage[field.name] = computedLineage();
    else if (contributed[field.name]) lineage[field.name] = contributed[field.name];
  }
  const data = buildRecordData(model, values);
  const issues = validateValues(model, values);
  const out: ResolvedRecord = { id: record.id, modelId: record.modelId, data, sha256: sha256Of(data), issues, lineage };
  const state: RecordState = { record, base, baseLineage: contributed, values, data, sha256: out.sha256, issues: issues.length === 0 ? "[]" : JSON.stringify(issues), lineage: encodeLineage(lineage, modelLineagePolicy(model)) };
  return { out, state };
}
