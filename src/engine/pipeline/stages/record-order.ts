/**
 * Orders that make a pass independent of the order its inputs arrive in, and the model
 * lookup every stage shares.
 */
import type { CompiledModel } from "../../models/model-types.js";
import type { PassRecord } from "../types.js";
import { compareStrings } from "../../../portable/resolution/candidate.js";

/** A record with its field values keyed by fieldId (undefined = no value). */
export interface RecordValues {
  record: PassRecord;
  values: Record<string, unknown>;
}

/** Records by id: the order of pass outputs. */
export function compareRecordIds(a: { id: string }, b: { id: string }): number {
  return compareStrings(a.id, b.id);
}

/**
 * Records oldest first, then by id: the order of arrays over records (`Applicant.income`,
 * `applicants.income`) and the preference of a `one` relationship.
 */
export function compareRecordAge(a: PassRecord, b: PassRecord): number {
  return compareStrings(a.createdAt, b.createdAt) || compareStrings(a.id, b.id);
}

/** Models by id, for lookups. */
export function indexModels(models: readonly CompiledModel[]): Map<string, CompiledModel> {
  return new Map(models.map((m) => [m.modelId, m]));
}

/** True when `obj` has `key` as an own property (never reaches the prototype chain). */
export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}
