import type { ProblemDetail } from "../../../contract/errors.js";
import type { Model } from "../../../contract/schemas/index.js";
import { checkEvidence, identityKeyOf, missingIdentity, type EvidenceModel } from "../../../engine/evidence/evidence-data.js";
import { missingIdentityProblem } from "../../../engine/evidence/evidence-problems.js";

const adapted = new WeakMap<Model, EvidenceModel>();

/** An API model as ingest's checks read it (fieldIds for identity), built once per model. */
function evidenceModel(model: Model): EvidenceModel {
  let m = adapted.get(model);
  if (!m) {
    const idOf = new Map(model.fields.map((f) => [f.name, f.fieldId]));
    const fields = model.fields.map((f) => ({ id: f.fieldId, name: f.name, type: f.type, validation: f.validation ?? null, computed: f.computed ?? null }));
    adapted.set(model, (m = { name: model.name, identity: model.identity.map((name) => idOf.get(name) ?? name), fields }));
  }
  return m;
}

/**
 * The checks ingest makes on a contribution's data that need no database write, made by
 * ingest's own code: unknown and computed fields, each value's type and validation (enum
 * values, ranges, patterns), confidences in 0..1, and identity values when no recordId
 * binds the line. A dry run makes them so it passes exactly the lines the real import
 * would accept, and words each refusal as the real import does.
 */
export function contributionDataProblems(model: Model, item: Record<string, unknown>): ProblemDetail[] {
  const data = item.data !== null && typeof item.data === "object" && !Array.isArray(item.data) ? (item.data as Record<string, unknown>) : {};
  const m = evidenceModel(model);
  const checked = checkEvidence(m, data, item.fieldConfidences as Record<string, number> | undefined);
  if (item.recordId === undefined && identityKeyOf(m, checked.data) === undefined) checked.problems.push(missingIdentityProblem(missingIdentity(m, checked.data)));
  return checked.problems;
}
