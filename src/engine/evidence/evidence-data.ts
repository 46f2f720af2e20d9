import type { ProblemDetail } from "../../contract/errors.js";
import type { StoredModel } from "../models/model-types.js";
import { checkValue } from "../models/value-check.js";

/** Evidence data translated to fieldIds, with every problem found. */
export interface CheckedEvidence {
  data: Record<string, unknown>;
  confidences: Record<string, number>;
  /** The same confidences keyed by field name (the API's shape). */
  confidencesByName: Record<string, number>;
  problems: ProblemDetail[];
}

/**
 * What checking evidence reads of a model: its name, identity (fieldIds) and fields. The
 * CLI's dry run builds one from an API model, so it checks lines exactly as ingest does.
 */
export type EvidenceModel = Pick<StoredModel, "name" | "identity"> & { fields: Pick<StoredModel["fields"][number], "id" | "name" | "type" | "validation" | "computed">[] };

type EvidenceField = EvidenceModel["fields"][number];

const byNameCache = new WeakMap<EvidenceModel, Map<string, EvidenceField>>();

/** A model's fields by name, built once per parsed model (a cached model is immutable). */
function fieldsByName(model: EvidenceModel): Map<string, EvidenceField> {
  let map = byNameCache.get(model);
  if (!map) byNameCache.set(model, (map = new Map(model.fields.map((f) => [f.name, f]))));
  return map;
}

/**
 * Checks evidence data against a model: unknown fields, computed fields (they receive no
 * contributions), types and validation rules, confidences in 0..1 for fields present.
 * Translates names to fieldIds so later renames cannot break the evidence.
 */
export function checkEvidence(model: EvidenceModel, data: Record<string, unknown>, confidences: Record<string, number> | undefined): CheckedEvidence {
  const problems: ProblemDetail[] = [];
  const byName = fieldsByName(model);
  const out: Record<string, unknown> = {};
  const conf: Record<string, number> = {};
  const confByName: Record<string, number> = {};
  // for-in, not Object.entries: no array per member (an import checks every line). A
  // parsed body's keys are all its own.
  for (const name in data) {
    if (!Object.hasOwn(data, name)) continue;
    const value = data[name];
    const field = byName.get(name);
    if (!field) {
      problems.push({ path: `data.${name}`, message: `unknown field "${name}" (model ${model.name} has ${model.fields.map((f) => f.name).join(", ") || "no fields"})` });
      continue;
    }
    if (field.computed) {
      problems.push({ path: `data.${name}`, message: `${name} is computed and cannot be contributed` });
      continue;
    }
    const problem = checkValue(field, value);
    if (problem) problems.push({ path: `data.${name}`, message: problem.message });
    out[field.id] = value;
    conf[field.id] = 1;
    confByName[name] = 1;
  }
  for (const [name, c] of Object.entries(confidences ?? {})) {
    const field = byName.get(name);
    if (typeof c !== "number" || !Number.isFinite(c) || c < 0 || c > 1) {
      problems.push({ path: `fieldConfidences.${name}`, message: `confidence must be a number from 0 to 1, got ${JSON.stringify(c)}` });
    } else if (!field || !(field.id in out)) {
      problems.push({ path: `fieldConfidences.${name}`, message: `"${name}" is not a field in data` });
    } else {
      conf[field.id] = c;
      confByName[name] = c;
    }
  }
  return { data: out, confidences: conf, confidencesByName: confByName, problems };
}

/**
 * The identity key of evidence: the canonical JSON array of the identity values in
 * identity order ("[]" for a singleton model). Undefined when a value is missing.
 */
export function identityKeyOf(model: EvidenceModel, dataByFieldId: Record<string, unknown>): string | undefined {
  const values: unknown[] = [];
  for (const fieldId of model.identity) {
    const v = dataByFieldId[fieldId];
    if (v === undefined || v === null) return undefined;
    values.push(v);
  }
  return JSON.stringify(values);
}

/** Field names of a model's identity fields that are missing from evidence. */
export function missingIdentity(model: EvidenceModel, dataByFieldId: Record<string, unknown>): string[] {
  return model.identity.filter((id) => dataByFieldId[id] === undefined || dataByFieldId[id] === null).map((id) => model.fields.find((f) => f.id === id)?.name ?? id);
}
