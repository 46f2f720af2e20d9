import { errors } from "../../contract/errors.js";
import type { ContributionCreate, SourceType } from "../../contract/schemas/index.js";
import { idText, newIdBytes } from "../../util/ids.js";
import { isDateTime } from "../models/field-definition.js";
import type { StoredModel } from "../models/model-types.js";
import type { ContextState } from "../store/context-repo.js";
import type { RecordInsert, RecordRow } from "../store/evidence-repo.js";
import { encodeConfidences, encodeValues } from "../store/field-values-codec.js";
import { checkEvidence, identityKeyOf, missingIdentity } from "./evidence-data.js";
import { contextNotActive, invalidContribution, missingIdentityProblem, modelNotActive } from "./evidence-problems.js";
import type { HeadEvidence } from "./head-evidence.js";
import type { Checked } from "./ingest-types.js";

/** Checks that evidence may be written into this model and context (the 409s of docs/resources.md). */
export function assertWritable(model: StoredModel, context: { id: string; status: string }): void {
  if (model.status !== "active") throw modelNotActive(model);
  if (context.status !== "active") throw contextNotActive(context, "adding evidence");
}

/** What an ingest writer knows when it checks an item: what the item names, loaded, and the source type forced on it. */
export interface CheckLookups {
  models: ReadonlyMap<string, StoredModel | undefined>;
  contexts: ReadonlyMap<string, ContextState>;
  records: ReadonlyMap<string, RecordRow | undefined>;
  /** Records the writer creates, by id. */
  created: ReadonlyMap<string, RecordInsert>;
  sourceType?: SourceType;
}

/** Every check of one item (SPEC §2 and §3): throws a DdsError when it is invalid. */
export function checkItem(input: ContributionCreate, known: CheckLookups): Checked {
  const model = known.models.get(input.modelId.toLowerCase());
  if (!model) throw errors.notFound("model", input.modelId);
  const context = known.contexts.get(input.contextId.toLowerCase());
  if (!context) throw errors.notFound("context", input.contextId);
  assertWritable(model, context);
  const checked = checkEvidence(model, input.data, input.fieldConfidences);
  if (input.observedAt !== undefined && !isDateTime(input.observedAt)) {
    checked.problems.push({ path: "observedAt", message: "must be an ISO 8601 datetime with a time zone" });
  }
  const recordId = input.recordId?.toLowerCase();
  const key = identityKeyOf(model, checked.data);
  if (recordId) {
    const record = known.created.get(recordId) ?? known.records.get(recordId);
    if (!record) throw errors.notFound("record", recordId);
    if (record.contextKey !== context.key || record.modelKey !== model.key) {
      checked.problems.push({ path: "recordId", message: "the record belongs to another context or model" });
    } else if (key !== undefined && model.identity.length > 0 && record.identityKey !== key) {
      checked.problems.push({ path: "data", message: "identity values differ from the bound record's identity" });
    }
  } else if (key === undefined) {
    checked.problems.push(missingIdentityProblem(missingIdentity(model, checked.data)));
  }
  if (checked.problems.length > 0) {
    throw invalidContribution(checked.problems);
  }
  const evidence: HeadEvidence = {
    sourceType: known.sourceType ?? input.sourceType,
    data: encodeValues(model, checked.data),
    // Without confidences in the item every one is the default 1: nothing is stored.
    confidences: input.fieldConfidences === undefined ? null : encodeConfidences(model, checked.confidences),
    observedAt: input.observedAt ?? null,
  };
  // Spelled out, without spreading an id object in: a literal with a spread is built member by member.
  const idBytes = newIdBytes();
  return { input, model, context, data: checked.data, confidences: checked.confidences, confidencesByName: checked.confidencesByName, recordId, key, evidence, id: idText(idBytes), idBytes };
}
