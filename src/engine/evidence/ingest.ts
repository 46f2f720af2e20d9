import { DdsError } from "../../contract/errors.js";
import { isWellFormedContribution } from "../../contract/contribution-shape.js";
import type { Contribution, ContributionCreate, SourceType } from "../../contract/schemas/index.js";
import type { PassContribution } from "../pipeline/types.js";
import { loadedSchemas, requestSchemas } from "../request-schemas.js";
import { assertJsonValue } from "../../contract/json-limits.js";
import { parseBody } from "../../contract/parse.js";
import { idText, newIdBytes } from "../../util/ids.js";
import type { Scope } from "../engine-context.js";
import type { StoredModel } from "../models/model-types.js";
import type { ContextState } from "../store/context-repo.js";
import { identityMapKey, sourceMapKey, type ContributionInsert, type FoundRecord, type IdentityKey, type RecordInsert, type RecordRow, type SourceHead, type SourceKey } from "../store/evidence-repo.js";
import { apiContribution } from "./contribution-view.js";
import type { GroupJournal } from "../pipeline/group-journal.js";
import { jsonCopy } from "./json-copy.js";
import type { CompiledModel } from "../models/model-types.js";
import { checkItem, type CheckLookups } from "./check-item.js";
import type { Bound, Checked, Head, IngestDeps, IngestWriter, IngestWriterOptions } from "./ingest-types.js";
import { definitionsOf, resolveNewRecords, type IdentityItem } from "./new-records.js";
import { sameEvidence } from "./head-evidence.js";
import { withAnswerStatus } from "../../contract/answer-status.js";
import { tellJournal, type JournalFacts } from "./ingest-journal.js";
import { flat } from "../../util/flat-string.js";

export type { IngestDeps, IngestWriter, IngestWriterOptions } from "./ingest-types.js";

/** The key of a record and source's head in a writer's map (flat: kept until the call ends). */
const headKeyOf = (recordId: string, sourceId: string): string => flat(`${recordId}\u0000${sourceId}`);
export { assertWritable } from "./check-item.js";

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
  const facts = new Map<ContributionInsert, JournalFacts>();
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
  
  /** The lookups `checkItem` reads: this writer's maps, and the call's source type override. */
  const lookups: CheckLookups = { models, contexts, records, created };

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
    const headKey = headKeyOf(record.id, c.input.sourceId);
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
      lookups.sourceType = sourceTypeOverride;
      // For a body the fast shape check does not pass, which the schema explains.
      await requestSchemas();
      const early = prepared?.bodies === bodies ? prepared : undefined;
      prepared = undefined;
      const { parsed, fetched } = early ?? parseAndPrefetch(bodies, jsonChecked);
      await fetched;
      const checked = parsed.map((p) => (p instanceof DdsError ? p : caught(() => checkItem(p, lookups))));
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
        if (record?.key === undefined || record.fresh || heads.has(headKeyOf(record.id, c.input.sourceId))) continue;
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
        // Held: prefetch locked every context touched, FOR KEY SHARE at least.
        deps.markStale(s, touched, changedRecords, true),
      ]);
      const journal = deps.journal?.();
      if (journal) tellJournal(journal, { models, freshRecords, created, supersededKeys, rows, facts }, alone);
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
