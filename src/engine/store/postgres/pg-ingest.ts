import { identityMapKey, sourceMapKey, workspaceKey, type FoundRecord, type IngestStore } from "../evidence-repo.js";
import type { Sql } from "../sql.js";

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

/** Keys for `n` new rows of `table`, from its sequence, taken first so rows written together can refer to each other. */
async function newKeys(db: Sql, table: "records" | "contributions", n: number): Promise<number[]> {
  const rows = await db.all<{ id: number }>(`SELECT nextval(pg_get_serial_sequence('${table}', 'id')) AS id FROM generate_series(1, ?)`, [n]);
  return rows.map((r) => Number(r.id));
}

async function inChunks<T>(rows: readonly T[], fn: (chunk: readonly T[]) => Promise<unknown>): Promise<void> {
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) writes.push(fn(rows.slice(i, i + CHUNK)));
  await Promise.all(writes);
}

const RECORD_INSERT = "INSERT INTO records (id, uuid, workspace_id, context_id, model_id, identity_key, created_by, created_at, updated_at) VALUES ";
const RECORD_VALUES = "(?, ?, ?, ?, ?, ?, ?, ?, ?)";
const CONTRIBUTION_INSERT = `INSERT INTO contributions (id, uuid, workspace_id, record_id, source_id, source_type, data, field_confidences, status, supersedes,
  observed_at, received_at, created_by) VALUES `;
const CONTRIBUTION_VALUES = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

/**
 * An ingest on PostgreSQL: one query for every key of a call (arrays unnested into a join)
 * and multi-row statements for every row, since each statement costs a network round
 * trip; statements issued together are pipelined on the transaction's connection.
 */
export const pgIngest: IngestStore = {
  async findRecords(db, keys) {
    const found = new Map<string, FoundRecord>();
    if (keys.length === 0) return found;
    const rows = await db.all<{ key: number; id: string; c: number; m: number; k: string }>(
      `SELECT r.id AS key, r.uuid AS id, r.context_id AS c, r.model_id AS m, r.identity_key AS k FROM records r
       JOIN unnest(?::bigint[], ?::bigint[], ?::text[]) AS x(c, m, k) ON r.context_id = x.c AND r.model_id = x.m AND r.identity_key = x.k
       WHERE r.deleted_at IS NULL`,
      [keys.map((k) => k.contextKey), keys.map((k) => k.modelKey), keys.map((k) => k.identityKey)],
    );
    for (const r of rows) found.set(identityMapKey({ contextKey: Number(r.c), modelKey: Number(r.m), identityKey: r.k }), { key: Number(r.key), id: r.id });
    return found;
  },
  // The unique index on accepted contributions makes this one index probe per pair.
  async acceptedFromSources(db, keys) {
    const found = new Map<string, { id: string; key: number }>();
    if (keys.length === 0) return found;
    const rows = await db.all<{ key: number; id: string; r: number; s: string }>(
      `SELECT k.id AS key, k.uuid AS id, k.record_id AS r, k.source_id AS s FROM contributions k
       JOIN unnest(?::bigint[], ?::text[]) AS x(r, s) ON k.record_id = x.r AND k.source_id = x.s
       WHERE k.status = 'accepted'`,
      [keys.map((k) => k.recordKey), keys.map((k) => k.sourceId)],
    );
    for (const r of rows) found.set(sourceMapKey({ recordKey: Number(r.r), sourceId: r.s }), { key: Number(r.key), id: r.id });
    return found;
  },
  async insertRecords(db, workspace, rows) {
    if (rows.length === 0) return;
    const d = db.dialect;
    const [ws, keys] = await Promise.all([workspaceKey(db, workspace), newKeys(db, "records", rows.length)]);
    rows.forEach((r, i) => (r.key = keys[i]));
    await inChunks(rows, (chunk) => {
      const params: unknown[] = [];
      for (const r of chunk) params.push(r.key, d.uuid(r.id), ws, r.contextKey, r.modelKey, r.identityKey, r.createdBy, d.time(r.now), d.time(r.now));
      return db.run(rowsSql(RECORD_INSERT, RECORD_VALUES, chunk.length), params);
    });
  },
  async insertContributions(db, workspace, rows) {
    if (rows.length === 0) return;
    const d = db.dialect;
    const [ws, keys] = await Promise.all([workspaceKey(db, workspace), newKeys(db, "contributions", rows.length)]);
    rows.forEach((r, i) => (r.key = keys[i]));
    await inChunks(rows, (chunk) => {
      const params: unknown[] = [];
      for (const c of chunk) {
        params.push(c.key, d.uuid(c.id), ws, c.recordKey, c.sourceId, c.sourceType, c.data, c.fieldConfidences, c.status,
          c.supersedesRow?.key ?? c.supersedesKey, c.observedAt, d.time(c.receivedAt), c.createdBy);
      }
      return db.run(rowsSql(CONTRIBUTION_INSERT, CONTRIBUTION_VALUES, chunk.length), params);
    });
  },
  async markSuperseded(db, keys) {
    if (keys.length > 0) await db.run("UPDATE contributions SET status = 'superseded' WHERE id = ANY(?::bigint[])", [keys]);
  },
};
