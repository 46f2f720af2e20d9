import { DdsError, errors } from "../../contract/errors.js";
import { isWellFormedContribution } from "../../contract/contribution-shape.js";
import type { Contribution, ContributionCreate, SourceType } from "../../contract/schemas/index.js";
import type { PassContribution } from "../pipeline/types.js";
import { loadedSchemas, requestSchemas } from "../request-schemas.js";
import { assertJsonValue } from "../../contract/json-limits.js";
import { parseBody } from "../../contract/parse.js";
import { idText, newIdBytes } from "../../util/ids.js";
import { isDateTime } from "../models/field-definition.js";
import type { Scope } from "../engine-context.js";
import type { StoredModel } from "../models/model-types.js";
import type { ContextState } from "../store/context-repo.js";
import { identityMapKey, sourceMapKey, type ContributionInsert, type IngestStore, type FoundRecord, type IdentityKey, type RecordInsert, type RecordRow, type SourceHead, type SourceKey } from "../store/evidence-repo.js";
import { encodeConfidences, encodeValues } from "../store/field-values-codec.js";
import { checkEvidence, identityKeyOf, missingIdentity } from "./evidence-data.js";
import { apiContribution } from "./contribution-view.js";
import { contextNotActive, invalidContribution, missingIdentityProblem, modelNotActive } from "./evidence-problems.js";
import type { ModelCache } from "./model-cache.js";
import type { ReplayRepo } from "../store/idempotency-repo.js";
import type { GroupJournal } from "../pipeline/group-journal.js";
import { jsonCopy } from "./json-copy.js";
import type { CompiledModel } from "../models/model-types.js";
import { definitionsOf, resolveNewRecords, type IdentityItem } from "./new-records.js";
import { sameEvidence, type HeadEvidence } from "./head-evidence.js";
import { withAnswerStatus } from "../../contract/answer-status.js";

/** What ingest needs beyond a scope: engine-wide caches and the store's lookups. */
export interface IngestDeps {
  models: ModelCache;
  /** Exactly-once keyed calls (one per engine: codecs registered here serve every door). */
  replay: ReplayRepo;
  ingest: IngestStore;
  /** Marks contexts stale (evidence arrived), by key, and the records whose evidence changed, inside the caller's transaction. */
  markStale(s: Scope, contextKeys: Iterable<number>, recordKeys?: Iterable<number>): Promise<void>;
  /** Starts what markStale will read first (sent with the writer's first reads, one round trip for both). */
  prepareStale?(s: Scope): void;
  /** The open write group's journal, if a group is open: what a call writes is told to it. */
  journal?: () => GroupJournal | undefined;
}

/** Checks that evidence may be written into this model and context (the 409s of docs/resources.md). */
export function assertWritable(model: StoredModel, context: { id: string; status: string }): void {
  if (model.status !== "active") throw modelNotActive(model);
  if (context.status !== "active") throw contextNotActive(context, "adding evidence");
}

/** The accepted contribution of one source to one record, as the writer knows it: stored, or made by this writer. */
interface Head extends Omit<SourceHead, "key"> {
  /** Its key once stored. */
  key?: number;
  /** Set while the contribution is still waiting in this writer (not written yet). */
  pending?: ContributionInsert;
}

/** A record a contribution binds to: stored (with its key) or created by this writer. */
interface Bound {
  id: string;
  key?: number;
  created?: RecordInsert;
  /** Stored by this writer (insertOrFindRecords): no contribution came before. */
  fresh?: boolean;
}

/** An item that passed every check, waiting to be bound to its record. */
interface Checked {
  input: ContributionCreate;
  model: StoredModel;
  context: ContextState;
  data: Record<string, unknown>;
  confidences: Record<string, number>;
  confidencesByName: Record<string, number>;
  /** The explicit record, or undefined when bound by identity. */
  recordId: string | undefined;
  key: string | undefined;
  /** The id its contribution gets, and its bytes (made at check: a record resolved as it is created names it in its lineage). */
  id: string;
  idBytes: Buffer;
  /** What it says, as stored (compared with the accepted contribution of its source). */
  evidence: HeadEvidence;
}

/** Writes the contributions of one transaction; see {@link createIngestWriter}. */
export interface IngestWriter {
  /**
   * Validates contributions and binds them (by recordId, identity values, or the singleton
   * rule), planning the records to create and the earlier contributions of the same
   * sources to supersede. Each item gets its contribution as the API shows it on creation,
   * or the DdsError that makes it invalid (an invalid item changes nothing, so a bulk item
   * needs no savepoint). The lookups are made for all items at once: a few queries per
   * call, not a few per item.
   */
  addAll(bodies: readonly unknown[], options?: { sourceTypeOverride?: SourceType; jsonChecked?: boolean }): Promise<(Contribution | DdsError)[]>;
  /**
   * Parses `bodies` and starts reading what they name (models, contexts, explicit records)
   * without waiting: the next `addAll` of the same array takes that over. Lets a caller put
   * those reads on the wire behind its own (a keyed call's key lock and lookup): one round
   * trip on PostgreSQL instead of two.
   */
  prepare(bodies: readonly unknown[], options?: { jsonChecked?: boolean }): void;
  /** Writes everything added so far (records, supersessions, contributions, staleness). */
  flush(): Promise<void>;
  /** The store's keys of every contribution written so far, in the order they were added. */
  writtenKeys(): number[];
}

const newContributionId = () => {
  const idBytes = newIdBytes();
  return { id: idText(idBytes), idBytes };
};

const caught = <T>(fn: () => T): T | DdsError => {
  try {
    return fn();
  } catch (err) {
    if (err instanceof DdsError) return err;
    throw err;
  }
};

/**
 * A writer for one transaction (a bulk request, or one contribution). Items are checked
 * one by one but written together at `flush`: one multi-row INSERT per hundred rows, and
 * superseding resolved in memory, with one lookup per record and source that existed
 * before the transaction (a record created in it has no earlier evidence). The contexts
 * written to are locked first (on PostgreSQL; SQLite's write transaction holds the file),
 * so nothing else changes the rows this writer remembers until it commits.
 */
/** Options of an ingest writer. */
export interface IngestWriterOptions {
  /**
   * Evidence equal to the accepted contribution of its source (see head-evidence.ts) is
   * answered with that one and stores nothing (default true); a record update, an explicit
   * edit, is stored whatever it says.
   */
  unchanged?: boolean;
}

export function createIngestWriter(s: Scope, deps: IngestDeps, options: IngestWriterOptions = {}): IngestWriter {
  const keepUnchanged = options.unchanged ?? true;
  const models = new Map<string, StoredModel | undefined>();
  const contexts = new Map<string, ContextState>();
  const records = new Map<string, RecordRow | undefined>();
  /** Records by identity map key: found in the store or created by this writer. */
  const recordsByKey = new Map<string, Bound>();
  /** Records this writer creates, until flush writes them (in creation order). */
  const created = new Map<string, RecordInsert>();
  /** Heads by record (id) and source. */
  const heads = new Map<string, Head>();
  const rows: ContributionInsert[] = [];
  const supersededKeys: number[] = [];
  const written: number[] = [];
  /** Contributions to records this writer creates: their record keys are known once flush writes the records. */
  const pendingBindings: [ContributionInsert, RecordInsert][] = [];
  /** What a write group's journal needs of each row (see GroupJournal), beside `rows`. */
  const facts = new Map<ContributionInsert, { contextKey: number; modelId: string; recordId: string; data: Record<string, unknown>; confidences: Record<string, number> }>();
  /**
   * Records stored by this writer's insert-or-find (fresh), with their models' ids and, if
   * written resolved, the definition they were resolved with; until flush journals them.
   */
  const freshRecords: [RecordInsert, string, CompiledModel | undefined][] = [];
  /** Ids of the records this writer wrote resolved. */
  const resolvedIds = new Set<string>();
  const touched = new Set<number>();
  /** Stored records (not created by this writer) given evidence: their next pass resolves them again. */
  const changedRecords = new Set<number>();
  let now: string | undefined;
  let marksPrepared = false;
  /**
   * A store without insertOrFindRecords (PostgreSQL) creates records at flush: in a write
   * group, those of models that resolve alone are resolved there from the items bound to
   * their identities (collected here), as findOrCreate does for the other store.
   */
  const aloneItems = new Map<string, IdentityItem[]>();
  /** Their models' definitions, asked with the call's lookups (one round trip for all). */
  let aloneModels: Promise<Map<number, CompiledModel>> | undefined;

  /**
   * Loads what the items name and this writer does not know yet: models, contexts (locked),
   * explicit records. The three reads are issued together (PostgreSQL pipelines them).
   */
  const prefetch = async (inputs: ContributionCreate[]) => {
    const modelIds = [...new Set(inputs.map((i) => i.modelId.toLowerCase()))].filter((id) => !models.has(id));
    const contextIds = [...new Set(inputs.map((i) => i.contextId.toLowerCase()))].filter((id) => !contexts.has(id));
    const recordIds = [...new Set(inputs.flatMap((i) => (i.recordId ? [i.recordId.toLowerCase()] : [])))].filter((id) => !records.has(id) && !created.has(id));
    // Asked together: on PostgreSQL the three reads share one round trip. The contexts are
    // held against status changes only (PostgreSQL's FOR KEY SHARE): other writers of evidence
    // into them go on meanwhile, a record's evidence being ordered by its unique indexes (a
    // second writer of the same record runs again after the first; see pg-sql.ts). A write
    // group holds them against every writer: it keeps what it read of them until it commits.
    const reads = Promise.all([
      deps.models.getMany(s, modelIds),
      s.contexts.getStates(contextIds, { lock: deps.journal?.() ? true : "key-share" }),
      s.evidence.getRecords(recordIds),
    ]);
    if (!marksPrepared) {
      marksPrepared = true;
      deps.prepareStale?.(s);
    }
    const [modelRows, contextRows, recordRows] = await reads;
    for (const [id, model] of modelRows) models.set(id, model);
    for (const row of contextRows) contexts.set(row.id, row);
    const found = new Map(recordRows.map((r) => [r.id, r]));
    for (const id of recordIds) records.set(id, found.get(id));
  };

  /** Parses the bodies and starts their prefetch: what `prepare` started, `addAll` finishes. */
  const parseAndPrefetch = (bodies: readonly unknown[], jsonChecked: boolean) => {
    const parsed = bodies.map((body) =>
      caught(() => {
        // The fast shape check below skips parseBody, so the JSON limits are checked here
        // (unless the whole bulk body was, by bulkItems).
        if (!jsonChecked) assertJsonValue(body, "contribution");
        return isWellFormedContribution(body) ? body : parseBody(loadedSchemas().ContributionCreate, body, "contribution");
      }),
    );
    const fetched = prefetch(parsed.filter((p): p is ContributionCreate => !(p instanceof DdsError)));
    // Awaited by addAll; a replay may never call it.
    fetched.catch(() => undefined);
    return { bodies, parsed, fetched };
  };
  let prepared: ReturnType<typeof parseAndPrefetch> | undefined;

  /**
   * The stored records of these identities. A store that can creates the missing ones at
   * once (see IngestStore.insertOrFindRecords): they are bound like records found. Those of
   * a model whose records resolve alone are written resolved from the call's items bound
   * to them (new-records.ts), so no pass writes them again; their contexts are marked stale
   * first, for the evidence version they are written with.
   */
  const findOrCreate = async (identities: IdentityKey[], valid: readonly Checked[]): Promise<Map<string, FoundRecord>> => {
    if (!deps.ingest.insertOrFindRecords) return deps.ingest.findRecords(s.db, identities);
    now ??= new Date().toISOString();
    const rows = identities.map((k): RecordInsert => {
      const idBytes = newIdBytes();
      return { id: idText(idBytes), idBytes, ...k, now: now!, createdBy: s.actor };
    });
    // In a write group, whose passes resolve its contexts before it commits, a record written
    // resolved is clean (a context those passes leave unresolved has such records stamped).
    // Outside one the next pass resolves new records, as it would anyway (and it may find the
    // identity taken, the row not written).
    const journal = deps.journal?.();
    const resolved = journal ? await resolveNewRecords(s.db, rows, identityItems(valid)) : new Map<string, CompiledModel>();
    const found = await deps.ingest.insertOrFindRecords(s.db, s.workspace, rows);
    const modelIds = new Map([...models.values()].flatMap((m) => (m ? [[m.key, m.id] as const] : [])));
    for (const r of rows) {
      if (r.key === undefined) continue;
      recordsByKey.set(identityMapKey(r), { id: r.id, key: r.key, fresh: true });
      const model = resolved.get(r.id);
      if (model) resolvedIds.add(r.id);
      freshRecords.push([r, modelIds.get(r.modelKey)!, model]);
    }
    return found;
  };

  /** The items bound by identity, by identity map key, as the resolution of a new record reads them. */
  const identityItems = (valid: readonly Checked[]) => {
    const out = new Map<string, IdentityItem[]>();
    for (const c of valid) {
      if (c.recordId) continue;
      const mk = identityMapKey({ contextKey: c.context.key, modelKey: c.model.key, identityKey: c.key! });
      let list = out.get(mk);
      if (!list) out.set(mk, (list = []));
      list.push({ sourceId: c.input.sourceId, evidence: c.evidence, contribution: passContribution(c) });
    }
    return out;
  };

  /** A checked item as a pass reads its contribution (its values as they read back from the store), its record not known yet. */
  const passContribution = (c: Checked): PassContribution => ({
    id: c.id,
    recordId: "",
    modelId: c.model.id,
    sourceId: c.input.sourceId,
    sourceType: c.evidence.sourceType as PassContribution["sourceType"],
    data: jsonCopy(c.data),
    confidences: c.confidences,
    receivedAt: now!,
    observedAt: c.input.observedAt ?? null,
  });
  let overrideType: SourceType | undefined;

  /** Every check of one item (SPEC §2 and §3): throws a DdsError when it is invalid. */
  const check = (input: ContributionCreate): Checked => {
    const model = models.get(input.modelId.toLowerCase());
    if (!model) throw errors.notFound("model", input.modelId);
    const context = contexts.get(input.contextId.toLowerCase());
    if (!context) throw errors.notFound("context", input.contextId);
    assertWritable(model, context);
    const checked = checkEvidence(model, input.data, input.fieldConfidences);
    if (input.observedAt !== undefined && !isDateTime(input.observedAt)) {
      checked.problems.push({ path: "observedAt", message: "must be an ISO 8601 datetime with a time zone" });
    }
    const recordId = input.recordId?.toLowerCase();
    const key = identityKeyOf(model, checked.data);
    if (recordId) {
      const record = created.get(recordId) ?? records.get(recordId);
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
      sourceType: overrideType ?? input.sourceType,
      data: encodeValues(model, checked.data),
      // Without confidences in the item every one is the default 1: nothing is stored.
      confidences: input.fieldConfidences === undefined ? null : encodeConfidences(model, checked.confidences),
      observedAt: input.observedAt ?? null,
    };
    return { input, model, context, data: checked.data, confidences: checked.confidences, confidencesByName: checked.confidencesByName, recordId, key, evidence, ...newContributionId() };
  };

  /** Binds a checked item to its record and plans its row (nothing here throws a DdsError). */
  const bind = (c: Checked, found: Map<string, FoundRecord>, stored: Map<string, SourceHead>): Contribution => {
    // One request is received at one moment: its items share receivedAt (ties fall to the id).
    now ??= new Date().toISOString();
    let record: Bound;
    if (c.recordId) {
      const existing = records.get(c.recordId);
      record = existing ? { id: existing.id, key: existing.key } : { id: c.recordId, created: created.get(c.recordId) };
    } else {
      const identity: IdentityKey = { contextKey: c.context.key, modelKey: c.model.key, identityKey: c.key! };
      const mapKey = identityMapKey(identity);
      let bound = recordsByKey.get(mapKey) ?? found.get(mapKey);
      if (!bound) {
        const idBytes = newIdBytes();
        const insert: RecordInsert = { id: idText(idBytes), idBytes, ...identity, now, createdBy: s.actor };
        created.set(insert.id, insert);
        bound = { id: insert.id, created: insert };
      }
      recordsByKey.set(mapKey, bound);
      record = bound;
    }
    const headKey = `${record.id}\u0000${c.input.sourceId}`;
    let previous: Head | undefined = heads.get(headKey);
    if (previous === undefined && record.key !== undefined) previous = stored.get(sourceMapKey({ recordKey: record.key, sourceId: c.input.sourceId }));
    // The same evidence again from its source: nothing new is stored, nothing turns stale, and
    // the answer is the contribution that says it (200, not 201).
    if (previous && keepUnchanged && sameEvidence(previous, c.evidence)) {
      const answer = apiContribution(
        {
          id: previous.id,
          contextId: c.context.id,
          modelId: c.model.id,
          recordId: record.id,
          sourceId: c.input.sourceId,
          sourceType: previous.sourceType,
          status: "accepted",
          supersedes: previous.supersedes,
          observedAt: previous.observedAt,
          receivedAt: previous.receivedAt,
          createdBy: previous.createdBy,
        },
        c.input.data,
        c.confidencesByName,
      );
      return withAnswerStatus(answer, 200);
    }
    if (previous?.pending) previous.pending.status = "superseded";
    else if (previous?.key !== undefined) supersededKeys.push(previous.key);
    const row: ContributionInsert = {
      id: c.id,
      idBytes: c.idBytes,
      recordKey: record.key ?? 0,
      sourceId: c.input.sourceId,
      sourceType: c.evidence.sourceType,
      data: c.evidence.data,
      fieldConfidences: c.evidence.confidences,
      status: "accepted",
      supersedesKey: previous?.pending ? null : (previous?.key ?? null),
      supersedesRow: previous?.pending,
      supersedesId: previous?.id ?? null,
      observedAt: c.evidence.observedAt,
      receivedAt: now,
      createdBy: s.actor,
    };
    rows.push(row);
    // A record this call wrote resolved needs none of its contributions in the journal, where
    // the tables hold them (its pass takes it as written; see GroupJournal).
    const journal = deps.journal?.();
    if (journal && !(journal.bounded && resolvedIds.has(record.id))) {
      facts.set(row, { contextKey: c.context.key, modelId: c.model.id, recordId: record.id, data: jsonCopy(c.data), confidences: c.confidences });
    }
    if (record.created) pendingBindings.push([row, record.created]);
    else if (record.key !== undefined && !record.fresh) changedRecords.add(record.key);
    // Spelled out: a spread into a literal with more members took a tenth of a friendly import.
    const e = c.evidence;
    heads.set(headKey, { sourceType: e.sourceType, data: e.data, confidences: e.confidences, observedAt: e.observedAt, id: row.id, pending: row, receivedAt: now, createdBy: s.actor, supersedes: row.supersedesId });
    touched.add(c.context.key);
    // The API shape straight from the checked input: its names are the model's current ones.
    return apiContribution(
      {
        id: row.id,
        contextId: c.context.id,
        modelId: c.model.id,
        recordId: record.id,
        sourceId: row.sourceId,
        sourceType: row.sourceType as SourceType,
        // A later item of the same call may still supersede it: the answer says what it was when made.
        status: "accepted",
        supersedes: previous?.id ?? null,
        observedAt: row.observedAt,
        receivedAt: now,
        createdBy: row.createdBy,
      },
      c.input.data,
      c.confidencesByName,
    );
  };

  return {
    // Its caller has loaded the schemas (see bulkCreateContributions): prepare is synchronous.
    prepare(bodies, { jsonChecked = false } = {}) {
      prepared = parseAndPrefetch(bodies, jsonChecked);
    },
    async addAll(bodies, { sourceTypeOverride, jsonChecked = false } = {}) {
      overrideType = sourceTypeOverride;
      // For a body the fast shape check does not pass, which the schema explains.
      await requestSchemas();
      const early = prepared?.bodies === bodies ? prepared : undefined;
      prepared = undefined;
      const { parsed, fetched } = early ?? parseAndPrefetch(bodies, jsonChecked);
      await fetched;
      const checked = parsed.map((p) => (p instanceof DdsError ? p : caught(() => check(p))));
      const valid = checked.filter((c): c is Checked => !(c instanceof DdsError));
      // Records by identity, then the sources' current contributions to records that
      // existed before: two lookups for the whole call.
      const identities = new Map<string, IdentityKey>();
      for (const c of valid) {
        if (c.recordId) continue;
        const k = { contextKey: c.context.key, modelKey: c.model.key, identityKey: c.key! };
        const mk = identityMapKey(k);
        if (!recordsByKey.has(mk)) identities.set(mk, k);
      }
      if (!deps.ingest.insertOrFindRecords && identities.size > 0 && deps.journal?.()) {
        aloneModels = definitionsOf(s.db, [...new Set(valid.filter((c) => !c.recordId).map((c) => c.model))]);
        aloneModels.catch(() => undefined);
      }
      const found = await findOrCreate([...identities.values()], valid);
      const sources = new Map<string, SourceKey>();
      for (const c of valid) {
        const record: { id: string; key?: number; fresh?: boolean } | undefined = c.recordId
          ? records.get(c.recordId)
          : (recordsByKey.get(identityMapKey({ contextKey: c.context.key, modelKey: c.model.key, identityKey: c.key! })) ??
            found.get(identityMapKey({ contextKey: c.context.key, modelKey: c.model.key, identityKey: c.key! })));
        // A record created by this call has no contributions before it.
        if (record?.key === undefined || record.fresh || heads.has(`${record.id}\u0000${c.input.sourceId}`)) continue;
        const k = { recordKey: record.key, sourceId: c.input.sourceId };
        sources.set(sourceMapKey(k), k);
      }
      const stored = await deps.ingest.acceptedFromSources(s.db, [...sources.values()]);
      const answers = checked.map((c) => (c instanceof DdsError ? c : bind(c, found, stored)));
      if (!deps.ingest.insertOrFindRecords && created.size > 0 && deps.journal?.()) {
        for (const [mk, items] of identityItems(valid)) {
          const list = aloneItems.get(mk);
          if (list) for (const item of items) list.push(item);
          else aloneItems.set(mk, items);
        }
      }
      return answers;
    },
    async flush() {
      // In a write group, records of models that resolve alone are written resolved (the
      // store may still write them unresolved, clearing `resolved`: see IngestStore.insertRecords).
      const alone = aloneItems.size > 0 ? await resolveNewRecords(s.db, [...created.values()], aloneItems, aloneModels) : undefined;
      aloneItems.clear();
      aloneModels = undefined;
      // The records first: their keys are those their contributions name.
      await deps.ingest.insertRecords(s.db, s.workspace, [...created.values()]);
      for (const [row, record] of pendingBindings) row.recordKey = record.key!;
      for (const bound of recordsByKey.values()) if (bound.created) bound.key = bound.created.key;
      // Issued together (in this order): PostgreSQL pipelines them.
      await Promise.all([
        deps.ingest.markSuperseded(s.db, supersededKeys),
        deps.ingest.insertContributions(s.db, s.workspace, rows),
        deps.markStale(s, touched, changedRecords),
      ]);
      const journal = deps.journal?.();
      if (journal) tell(journal, alone);
      for (const head of heads.values()) {
        if (head.pending) head.key = head.pending.key;
        delete head.pending;
      }
      for (const row of rows) written.push(row.key!);
      supersededKeys.length = 0;
      pendingBindings.length = 0;
      rows.length = 0;
      created.clear();
      touched.clear();
      changedRecords.clear();
      facts.clear();
      freshRecords.length = 0;
      resolvedIds.clear();
    },
    writtenKeys: () => written,
  };

  /** Tells the write group's journal what this flush wrote (records created, contributions, supersessions). */
  function tell(journal: GroupJournal, alone?: ReadonlyMap<string, CompiledModel>): void {
    const modelIds = new Map([...models.values()].flatMap((m) => (m ? [[m.key, m.id] as const] : [])));
    const createdRecord = (r: RecordInsert, modelId: string, model?: CompiledModel) =>
      journal.created({
        key: r.key!,
        contextKey: r.contextKey,
        record: { id: r.id, modelId, identityKey: r.identityKey, createdAt: r.now },
        ...(model && r.resolved ? { resolved: r.resolved, model, untold: journal.bounded, clean: r.clean === true } : {}),
      });
    for (const [r, modelId, model] of freshRecords) createdRecord(r, modelId, model);
    for (const r of created.values()) createdRecord(r, modelIds.get(r.modelKey)!, alone?.get(r.id));
    journal.superseded(supersededKeys);
    for (const row of rows) {
      const f = facts.get(row);
      if (!f) continue;
      journal.contributed(
        {
          key: row.key!,
          contextKey: f.contextKey,
          recordKey: row.recordKey,
          contribution: {
            id: row.id,
            recordId: f.recordId,
            modelId: f.modelId,
            sourceId: row.sourceId,
            sourceType: row.sourceType as PassContribution["sourceType"],
            data: f.data,
            confidences: f.confidences,
            receivedAt: row.receivedAt,
            observedAt: row.observedAt,
          },
        },
        row.status === "accepted",
      );
    }
  }
}

/**
 * Ingests one contribution inside the caller's transaction (see {@link IngestWriter.addAll})
 * and writes it at once; an invalid one throws its DdsError.
 */
export async function ingestOne(s: Scope, deps: IngestDeps, body: unknown, sourceTypeOverride?: SourceType, options?: IngestWriterOptions): Promise<Contribution> {
  const writer = createIngestWriter(s, deps, options);
  const [result] = await writer.addAll([body], { sourceTypeOverride });
  if (result instanceof DdsError) throw result;
  await writer.flush();
  return result;
}
