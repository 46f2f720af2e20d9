import { errors } from "../../contract/errors.js";
import { ContributionCreate, isWellFormedContribution, type Contribution, type SourceType } from "../../contract/schemas/index.js";
import { assertJsonValue } from "../../contract/json-limits.js";
import { parseBody } from "../../contract/parse.js";
import { newId } from "../../util/ids.js";
import { isDateTime } from "../models/field-definition.js";
import { requireContext } from "../contexts/context-service.js";
import type { EngineContext } from "../engine-context.js";
import type { StoredModel } from "../models/model-types.js";
import type { ContributionInsert, EvidenceRepo, RecordInsert } from "../store/evidence-repo.js";
import { checkEvidence, identityKeyOf, missingIdentity } from "./evidence-data.js";
import { apiContribution } from "./contribution-view.js";
import type { ModelCache } from "./model-cache.js";
import type { ReplayRepo } from "../store/replay-repo.js";

/** sha256 of the canonical JSON of `{}`: the data of a record not resolved yet. */
export const EMPTY_SHA256 = "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a";

/** What ingest needs beyond the engine context. */
export interface IngestDeps {
  ctx: EngineContext;
  evidence: EvidenceRepo;
  models: ModelCache;
  /** Exactly-once keyed calls (one per engine: codecs registered here serve every door). */
  replay: ReplayRepo;
  /** Marks a context stale (evidence arrived), inside the caller's transaction. */
  markStale(contextId: string): void;
}

/** Checks that evidence may be written into this model and context (the 409s of docs/resources.md). */
export function assertWritable(model: StoredModel, context: { id: string; status: string }): void {
  if (model.status !== "active") {
    throw errors.conflict("model_not_active", `model ${model.name} is ${model.status}; evidence is accepted only by active models`);
  }
  if (context.status !== "active") {
    throw errors.conflict("context_not_active", `context ${context.id} is ${context.status}; reopen it to add evidence`);
  }
}

/** The accepted contribution of one source to one record, as the writer knows it. */
interface Head {
  id: string;
  /** Set while the contribution is still waiting in this writer (not written yet). */
  pending?: ContributionInsert;
}

/** Writes the contributions of one transaction; see {@link createIngestWriter}. */
export interface IngestWriter {
  /**
   * Validates one contribution and binds it (by recordId, identity values, or the
   * singleton rule), planning the record to create and the earlier contribution of the
   * same source to supersede. Throws a DdsError for an invalid item and then changes
   * nothing, so a bulk item needs no savepoint. Returns the contribution as the API
   * shows it on creation.
   */
  add(body: unknown, sourceTypeOverride?: SourceType): Contribution;
  /** Writes everything added so far (records, supersessions, contributions, staleness). */
  flush(): void;
}

/**
 * A writer for one transaction (a bulk request, or one contribution). Items are checked
 * one by one but written together at `flush`: one multi-row INSERT per hundred rows, and
 * superseding resolved in memory, with one lookup per record and source that existed
 * before the transaction (a record created in it has no earlier evidence). Within the
 * write lock nothing else can change the rows this writer remembers.
 */
export function createIngestWriter(deps: IngestDeps): IngestWriter {
  const { ctx, evidence } = deps;
  const models = new Map<string, StoredModel | undefined>();
  const contexts = new Map<string, { id: string; status: string }>();
  const recordsByKey = new Map<string, string>();
  /** Records this writer creates, until flush writes them (in creation order). */
  const created = new Map<string, RecordInsert>();
  const heads = new Map<string, Head>();
  const rows: ContributionInsert[] = [];
  const supersededIds: string[] = [];
  const touched = new Set<string>();
  let now: string | undefined;

  const modelOf = (modelId: string): StoredModel | undefined => {
    let model = models.get(modelId);
    if (model === undefined && !models.has(modelId)) {
      model = deps.models.get(modelId);
      models.set(modelId, model);
    }
    return model;
  };
  const contextOf = (contextId: string): { id: string; status: string } => {
    let context = contexts.get(contextId);
    if (!context) {
      context = requireContext(ctx, contextId);
      contexts.set(contextId, context);
    }
    return context;
  };
  /** The record an explicit recordId names: one written before, or one created by this writer. */
  const recordById = (recordId: string): { contextId: string; modelId: string; identityKey: string | null } | undefined =>
    created.get(recordId) ?? evidence.getRecord(recordId);

  return {
    add(body, sourceTypeOverride) {
      // The fast shape check below skips parseBody, so the JSON limits are checked here.
      assertJsonValue(body, "contribution");
      const input = isWellFormedContribution(body) ? body : parseBody(ContributionCreate, body, "contribution");
      const model = modelOf(input.modelId);
      if (!model) throw errors.notFound("model", input.modelId);
      const context = contextOf(input.contextId);
      assertWritable(model, context);
      const checked = checkEvidence(model, input.data, input.fieldConfidences);
      if (input.observedAt !== undefined && !isDateTime(input.observedAt)) {
        checked.problems.push({ path: "observedAt", message: "must be an ISO 8601 datetime with a time zone" });
      }
      let recordId = input.recordId?.toLowerCase();
      const key = identityKeyOf(model, checked.data);
      if (recordId) {
        const record = recordById(recordId);
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
      // Every check is done: from here on nothing throws a DdsError.
      // One request is received at one moment: its items share receivedAt (ties fall to the id).
      now ??= new Date().toISOString();
      if (!recordId) {
        const recordKey = `${context.id}\u0000${model.id}\u0000${key}`;
        recordId = recordsByKey.get(recordKey) ?? evidence.findRecordId(context.id, model.id, key!);
        if (!recordId) {
          recordId = newId();
          const record = { id: recordId, contextId: context.id, modelId: model.id, identityKey: key!, sha256: EMPTY_SHA256, now, createdBy: ctx.actor };
          created.set(recordId, record);
        }
        recordsByKey.set(recordKey, recordId);
      }
      const headKey = `${recordId}\u0000${input.sourceId}`;
      let previous = heads.get(headKey);
      if (previous === undefined && !created.has(recordId)) {
        const stored = evidence.acceptedFromSource(recordId, input.sourceId);
        if (stored !== undefined) previous = { id: stored };
      }
      if (previous?.pending) previous.pending.status = "superseded";
      else if (previous) supersededIds.push(previous.id);
      const row: ContributionInsert = {
        id: newId(),
        contextId: context.id,
        modelId: model.id,
        recordId,
        sourceId: input.sourceId,
        sourceType: sourceTypeOverride ?? input.sourceType,
        data: JSON.stringify(checked.data),
        fieldConfidences: JSON.stringify(checked.confidences),
        status: "accepted",
        supersedes: previous?.id ?? null,
        observedAt: input.observedAt ?? null,
        receivedAt: now,
        createdBy: ctx.actor,
      };
      rows.push(row);
      heads.set(headKey, { id: row.id, pending: row });
      touched.add(context.id);
      // The API shape straight from the checked input: its names are the model's current ones.
      return apiContribution(row, input.data, checked.confidencesByName);
    },
    flush() {
      evidence.insertRecords([...created.values()]);
      evidence.markSuperseded(supersededIds);
      evidence.insertContributions(rows);
      for (const contextId of touched) deps.markStale(contextId);
      for (const head of heads.values()) delete head.pending;
      supersededIds.length = 0;
      rows.length = 0;
      created.clear();
      touched.clear();
    },
  };
}

/**
 * Ingests one contribution inside the caller's transaction (see {@link IngestWriter.add})
 * and writes it at once.
 */
export function ingestOne(deps: IngestDeps, body: unknown, sourceTypeOverride?: SourceType): Contribution {
  const writer = createIngestWriter(deps);
  const contribution = writer.add(body, sourceTypeOverride);
  writer.flush();
  return contribution;
}
