import { identityMapKey, sourceMapKey, UNRESOLVED_VERSION, workspaceKey, type ContributionInsert, type FoundRecord, type IdentityKey, type IngestStore, type SourceHead, type SourceKey } from "../evidence-repo.js";
import type { Sql } from "../sql.js";
import { IngestBuffer } from "./pg-ingest-buffer.js";
import type { KeyBlocks } from "./pg-key-blocks.js";
import type { KnownIdentities } from "./pg-known-identities.js";
import { STAMP } from "./pg-stale.js";

/** Rows per multi-row statement (far below PostgreSQL's 65,535 parameters). */
const CHUNK = 500;

const sqlCache = new Map<string, string>();
/** `head` followed by `n` copies of `values` (cached: prepared statements key on the text). */
function rowsSql(head: string, values: string, n: number): string {
  const key = `${n}:${head}`;
  let sql = sqlCache.get(key);
  if (!sql) sqlCache.set(key, (sql = head + Array(n).fill(values).join(", ")));
  return sql;
}

/**
 * Keys for `n` new rows of `table`, from its sequence as the rows are written (a writer that
 * runs again after another gets later keys), taken first so rows written together can
 * refer to each other. One row of text: a hundred rows cost the driver more to read than
 * the server to make.
 */
async function newKeys(db: Sql, table: "records" | "contributions", n: number): Promise<number[]> {
  const [row] = await db.all<{ ids: string }>(`SELECT string_agg(nextval(pg_get_serial_sequence('${table}', 'id'))::text, ',') AS ids FROM generate_series(1, ?)`, [n]);
  return row.ids.split(",").map(Number);
}

async function inChunks<T>(rows: readonly T[], fn: (chunk: readonly T[]) => Promise<unknown>): Promise<void> {
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) writes.push(fn(rows.slice(i, i + CHUNK)));
  await Promise.all(writes);
}

/**
 * Inserts new rows outside a write group: their keys taken from the table's sequence first
 * (beside the workspace's key), set on the rows, then multi-row INSERTs in chunks.
 */
async function insertKeyed<R extends { key?: number }>(
  db: Sql,
  workspace: string,
  table: "records" | "contributions",
  rows: readonly R[],
  sql: { head: string; values: string },
  paramsOf: (row: R, workspaceKey: number | undefined) => unknown[],
): Promise<void> {
  const [ws, keys] = await Promise.all([workspaceKey(db, workspace), newKeys(db, table, rows.length)]);
  rows.forEach((r, i) => (r.key = keys[i]));
  await inChunks(rows, (chunk) => db.run(rowsSql(sql.head, sql.values, chunk.length), chunk.flatMap((r) => paramsOf(r, ws))));
}

const RECORD_INSERT = "INSERT INTO records (id, uuid, workspace_id, context_id, model_id, identity_key, created_by, created_at, updated_at, changed_version) VALUES ";
const RECORD_VALUES = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ${UNRESOLVED_VERSION})`;
// One array per column, whatever the number of rows: a fixed text (prepared once) with 12
// parameters, where a multi-row VALUES list binds 13 per row (and each bound parameter
// costs the driver more than an element of an array does).
const CONTRIBUTION_INSERT = `INSERT INTO contributions (id, uuid, workspace_id, record_id, source_id, source_type, data, field_confidences, status, supersedes,
    observed_at, received_at, created_by)
  SELECT x.id, x.uuid, ?, x.r, x.s, x.t, CAST(x.d AS json), CAST(x.f AS json), x.st, x.sup, x.o, x.at, x.b
  FROM unnest(?::bigint[], ?::uuid[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[], ?::timestamptz[], ?::text[])
    AS x(id, uuid, r, s, t, d, f, st, sup, o, at, b)`;

const FIND_RECORDS = `SELECT r.id AS key, r.uuid AS id, r.context_id AS c, r.model_id AS m, r.identity_key AS k FROM records r
  JOIN unnest(?::bigint[], ?::bigint[], ?::text[]) AS x(c, m, k) ON r.context_id = x.c AND r.model_id = x.m AND r.identity_key = x.k
  WHERE r.deleted_at IS NULL`;
// The unique index on accepted contributions makes this one index probe per pair.
const ACCEPTED = `SELECT k.id AS key, k.uuid AS id, k.record_id AS r, k.source_id AS s, k.source_type AS "sourceType", k.data::text AS data,
    k.field_confidences::text AS confidences, k.observed_at AS "observedAt", k.received_at AS "receivedAt", k.created_by AS "createdBy", p.uuid AS supersedes
  FROM contributions k
  JOIN unnest(?::bigint[], ?::text[]) AS x(r, s) ON k.record_id = x.r AND k.source_id = x.s
  LEFT JOIN contributions p ON p.id = k.supersedes
  WHERE k.status = 'accepted'`;

// Under the group's row lock on each context (taken by the call before its lookups).
const CHECK_CONTEXTS = `SELECT c.id, c.evidence_version AS version,
  EXISTS (SELECT 1 FROM records r WHERE r.context_id = c.id AND r.deleted_at IS NULL) AS used
  FROM contexts c WHERE c.id = ANY(?::bigint[])`;

async function storedRecords(db: Sql, keys: readonly IdentityKey[], found: Map<string, FoundRecord>): Promise<Map<string, FoundRecord>> {
  if (keys.length === 0) return found;
  const rows = await db.all<{ key: number; id: string; c: number; m: number; k: string }>(FIND_RECORDS, [
    keys.map((k) => k.contextKey),
    keys.map((k) => k.modelKey),
    keys.map((k) => k.identityKey),
  ]);
  for (const r of rows) found.set(identityMapKey({ contextKey: Number(r.c), modelKey: Number(r.m), identityKey: r.k }), { key: Number(r.key), id: r.id });
  return found;
}

async function storedHeads(db: Sql, keys: readonly SourceKey[], found: Map<string, SourceHead>): Promise<Map<string, SourceHead>> {
  if (keys.length === 0) return found;
  const rows = await db.all<Omit<SourceHead, "key"> & { key: number; r: number; s: string }>(ACCEPTED, [keys.map((k) => k.recordKey), keys.map((k) => k.sourceId)]);
  for (const { r, s, ...head } of rows) found.set(sourceMapKey({ recordKey: Number(r), sourceId: s }), { ...head, key: Number(head.key) });
  return found;
}

/** A write group's memo, which carries the group's held rows to the store's ingest (see pg-write-group.ts). */
export class GroupMemo extends Map<string, unknown> {
  constructor(
    private readonly root: Map<string, unknown>,
    readonly buffer: IngestBuffer,
  ) {
    super();
  }
  override get(key: string): unknown {
    return this.root.get(key);
  }
  override set(key: string, value: unknown): this {
    this.root.set(key, value);
    return this;
  }
  override has(key: string): boolean {
    return this.root.has(key);
  }
  override delete(key: string): boolean {
    return this.root.delete(key);
  }
}

/** A new write group's buffer for held rows; its keys come from the store's `keys`, and what it knows of contexts from `known`. */
// The stamp of records given evidence names only rows the tables have (a record the group
// holds needs none: it is unresolved), so it copies nothing either.
export const newIngestBuffer = (keys: KeyBlocks, known: KnownIdentities): IngestBuffer => new IngestBuffer(keys, known, [FIND_RECORDS, ACCEPTED, CHECK_CONTEXTS, STAMP]);

/** The rows of `db`'s write group, when `db` runs a call of one and rows are held there now. */
export function held(db: Sql): IngestBuffer | undefined {
  const memo = db.memo;
  return memo instanceof GroupMemo && memo.buffer.holding ? memo.buffer : undefined;
}

/**
 * An ingest on PostgreSQL. Outside a write group (a `serve` request): one query for every
 * key of a call (arrays unnested into a join) and multi-row statements for every row, since
 * each statement costs a network round trip; statements issued together are pipelined on
 * the transaction's connection. In a write group (a local import): the rows are held by
 * the group and copied in with COPY, and the lookups see them (pg-ingest-buffer.ts).
 */
export const pgIngest: IngestStore = {
  async findRecords(db, keys) {
    const buffer = held(db);
    if (!buffer) return storedRecords(db, keys, new Map());
    const { found, missing, unchecked } = buffer.findRecords(keys);
    // One round trip for both: the records asked, and the contexts to know for next time.
    const [records, contexts] = await Promise.all([
      storedRecords(db, missing, found),
      unchecked.length > 0 ? db.all<{ id: number; version: number; used: boolean }>(CHECK_CONTEXTS, [unchecked]) : [],
    ]);
    buffer.check(contexts.map((c) => ({ id: Number(c.id), version: Number(c.version), used: c.used })));
    return records;
  },
  acceptedFromSources(db, keys) {
    const buffer = held(db);
    if (!buffer) return storedHeads(db, keys, new Map());
    const { found, missing } = buffer.acceptedFromSources(keys);
    return storedHeads(db, missing, found);
  },
  async insertRecords(db, workspace, rows) {
    if (rows.length === 0) return;
    const buffer = held(db);
    if (buffer) return buffer.addRecords(await workspaceKey(db, workspace), rows);
    // Outside the group's held rows (a nested savepoint) they are written unresolved: their pass resolves them.
    for (const r of rows) {
      r.resolved = undefined;
      r.clean = undefined;
    }
    const d = db.dialect;
    await insertKeyed(db, workspace, "records", rows, { head: RECORD_INSERT, values: RECORD_VALUES }, (r, ws) => [
      r.key, d.uuid(r.id), ws, r.contextKey, r.modelKey, r.identityKey, r.createdBy, d.time(r.now), d.time(r.now),
    ]);
  },
  async insertContributions(db, workspace, rows) {
    if (rows.length === 0) return;
    const buffer = held(db);
    if (buffer) return buffer.addContributions(await workspaceKey(db, workspace), rows);
    const d = db.dialect;
    const [ws, keys] = await Promise.all([workspaceKey(db, workspace), newKeys(db, "contributions", rows.length)]);
    rows.forEach((r, i) => (r.key = keys[i]));
    const column = <T>(of: (c: ContributionInsert) => T): T[] => rows.map(of);
    await db.run(CONTRIBUTION_INSERT, [
      ws,
      keys,
      column((c) => d.uuid(c.id)),
      column((c) => c.recordKey),
      column((c) => c.sourceId),
      column((c) => c.sourceType),
      column((c) => c.data),
      column((c) => c.fieldConfidences),
      column((c) => c.status),
      column((c) => c.supersedesRow?.key ?? c.supersedesKey),
      column((c) => c.observedAt),
      column((c) => d.time(c.receivedAt)),
      column((c) => c.createdBy),
    ]);
  },
  async markSuperseded(db, keys) {
    if (keys.length === 0) return;
    const buffer = held(db);
    if (buffer) return buffer.supersede(keys);
    await db.run("UPDATE contributions SET status = 'superseded' WHERE id = ANY(?::bigint[])", [keys]);
  },
};
