import { errors } from "../../contract/errors.js";
import { ContributionCreate, type Contribution, type SourceType } from "../../contract/schemas/index.js";
import { parseBody } from "../../contract/parse.js";
import { newId } from "../../util/ids.js";
import { isDateTime } from "../models/field-definition.js";
import { requireContext } from "../contexts/context-service.js";
import type { EngineContext } from "../engine-context.js";
import type { StoredModel } from "../models/model-types.js";
import type { EvidenceRepo } from "../store/evidence-repo.js";
import { checkEvidence, identityKeyOf, missingIdentity } from "./evidence-data.js";
import type { ModelCache } from "./model-cache.js";
import { toApiContribution } from "./contribution-view.js";

/** sha256 of the canonical JSON of `{}`: the data of a record not resolved yet. */
export const EMPTY_SHA256 = "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a";

/**
 * Lookups remembered for the length of one transaction (a bulk request): inside the
 * write lock nothing else can change them, and a bulk touches few contexts and models.
 */
export interface IngestMemo {
  contexts: Map<string, { id: string; status: string }>;
  models: Map<string, StoredModel | undefined>;
  records: Map<string, string>;
}

/** A fresh memo for one transaction. */
export function createIngestMemo(): IngestMemo {
  return { contexts: new Map(), models: new Map(), records: new Map() };
}

/** What ingest needs beyond the engine context. */
export interface IngestDeps {
  ctx: EngineContext;
  evidence: EvidenceRepo;
  models: ModelCache;
  /** Marks a context stale (evidence arrived), inside the caller's transaction. */
  markStale(contextId: string): void;
}

/** Checks that evidence may be written into this model and context (409s of SPEC §2). */
export function assertWritable(model: StoredModel, context: { id: string; status: string }): void {
  if (model.status !== "active") {
    throw errors.conflict("model_not_active", `model ${model.name} is ${model.status}; evidence is accepted only by active models`);
  }
  if (context.status !== "active") {
    throw errors.conflict("context_not_active", `context ${context.id} is ${context.status}; reopen it to add evidence`);
  }
}

/**
 * Ingests one contribution inside the caller's transaction: validates it against the
 * model, binds it to a record (by recordId, identity values, or the singleton rule,
 * creating the record when none exists), supersedes the same source's earlier
 * contribution to that record, and marks the context stale.
 */
export function ingestOne(deps: IngestDeps, body: unknown, memo: IngestMemo = createIngestMemo(), sourceTypeOverride?: SourceType): Contribution {
  const { ctx, evidence } = deps;
  const input = parseBody(ContributionCreate, body, "contribution");
  let model = memo.models.get(input.modelId);
  if (model === undefined) {
    model = deps.models.get(input.modelId);
    memo.models.set(input.modelId, model);
  }
  if (!model) throw errors.notFound("model", input.modelId);
  let context = memo.contexts.get(input.contextId);
  if (!context) {
    context = requireContext(ctx, input.contextId);
    memo.contexts.set(input.contextId, context);
  }
  assertWritable(model, context);
  const checked = checkEvidence(model, input.data, input.fieldConfidences);
  if (input.observedAt !== undefined && !isDateTime(input.observedAt)) {
    checked.problems.push({ path: "observedAt", message: "must be an ISO 8601 datetime with a time zone" });
  }
  let recordId = input.recordId?.toLowerCase();
  const key = identityKeyOf(model, checked.data);
  if (recordId) {
    const record = evidence.getRecord(recordId);
    if (!record) throw errors.notFound("record", recordId);
    if (record.contextId !== context.id || record.modelId !== model.id) {
      checked.problems.push({ path: "recordId", message: "the record belongs to another context or model" });
    } else if (key !== undefined && model.identity.length > 0 && record.identityKey !== key) {
      checked.problems.push({ path: "data", message: "identity values differ from the bound record's identity" });
    }
  } else if (key === undefined) {
    checked.problems.push({ path: "data", message: `missing identity: ${missingIdentity(model, checked.data).join(", ")} (or give recordId)` });
  }
  if (checked.problems.length > 0) {
    throw errors.validation(`contribution is invalid: ${checked.problems[0].path}: ${checked.problems[0].message}`, checked.problems);
  }
  // Every check is done: from here on nothing throws a DdsError, so a bulk item needs no
  // savepoint of its own (an unexpected failure rolls the whole request back).
  const now = new Date().toISOString();
  if (!recordId) {
    const memoKey = `${context.id}\u0000${model.id}\u0000${key}`;
    recordId = memo.records.get(memoKey) ?? evidence.findRecordId(context.id, model.id, key!);
    if (!recordId) {
      recordId = newId();
      evidence.insertRecord({ id: recordId, contextId: context.id, modelId: model.id, identityKey: key!, sha256: EMPTY_SHA256, now, createdBy: ctx.actor });
    }
    memo.records.set(memoKey, recordId);
  }
  const previous = evidence.supersedeFromSource(recordId, input.sourceId);
  const row = {
    id: newId(),
    contextId: context.id,
    modelId: model.id,
    recordId,
    sourceId: input.sourceId,
    sourceType: sourceTypeOverride ?? input.sourceType,
    data: JSON.stringify(checked.data),
    fieldConfidences: JSON.stringify(checked.confidences),
    status: "accepted" as const,
    supersedes: previous ?? null,
    observedAt: input.observedAt ?? null,
    receivedAt: now,
    createdBy: ctx.actor,
  };
  evidence.insertContribution(row);
  deps.markStale(context.id);
  const names = new Map(model.fields.map((f) => [f.id, f.name]));
  return toApiContribution({ ...row, workspace: ctx.workspace }, names);
}
