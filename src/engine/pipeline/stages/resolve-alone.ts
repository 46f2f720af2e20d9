/**
 * Records resolved where their evidence is written: a record of a model without computed
 * fields has a row (data, sha256, issues, lineage) that depends on its own contributions and
 * its model's definition alone, whatever else its context holds; links and evaluations are
 * rows of their own. So an ingest that creates such a record can write it resolved at once,
 * and the pass of its context finds nothing to write for it.
 */
import type { CompiledModel } from "../../models/model-types.js";
import type { PassContribution, PassRecord, RecordState } from "../types.js";
import { buildRecord } from "./build-record.js";
import { resolveRecords } from "./resolve-records.js";

/** True when a model's records can be resolved alone (no computed field reads other records or fields). */
export function resolvesAlone(model: CompiledModel): boolean {
  return model.computedOrder.length === 0 && !model.fields.some((f) => f.computed);
}

/**
 * The state every pass would give each of `records` from `contributions` (the accepted ones
 * to them; a record of a model that is absent or does not resolve alone is left out), by
 * record id.
 */
export function resolveAlone(models: readonly CompiledModel[], records: readonly PassRecord[], contributions: PassContribution[]): Map<string, RecordState> {
  const alone = models.filter(resolvesAlone);
  const byId = new Map(alone.map((m) => [m.modelId, m]));
  const states = new Map<string, RecordState>();
  for (const { record, values, lineage } of resolveRecords({ models: alone, records: records.filter((r) => byId.has(r.modelId)), contributions })) {
    states.set(record.id, buildRecord(byId.get(record.modelId)!, record, values, values, lineage).state);
  }
  return states;
}
