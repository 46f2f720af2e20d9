import { identityMapKey, sourceMapKey, UNRESOLVED_VERSION, workspaceKey, type FoundRecord, type IngestStore, type SourceHead } from "../evidence-repo.js";
import { groupMap, type Sql } from "../sql.js";
import { uuidBytesOf, uuidString } from "../values.js";
import { sqliteStatement } from "./sqlite-sql.js";

const RECORD_INSERT = `INSERT INTO records (uuid, workspace_id, context_id, model_id, identity_key, created_by, created_at, updated_at, changed_version)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ${UNRESOLVED_VERSION})`;
// A record its writer resolved: its columns at once, so it is written once; clean (0), or
// with the evidence version its context has now (the writer marked it stale first).
const RESOLVED_INSERT = `INSERT INTO records (uuid, workspace_id, context_id, model_id, identity_key, created_by, created_at, updated_at,
  data, sha256, issues, lineage, changed_version)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CASE WHEN ? THEN 0 ELSE (SELECT evidence_version FROM contexts WHERE id = ?) END)`;
// The identity index refuses a second live record of one identity: the insert then does nothing.
const ON_IDENTITY = " ON CONFLICT (context_id, model_id, identity_key) WHERE deleted_at IS NULL DO NOTHING";
const RECORD_FIND = "SELECT id, uuid FROM records WHERE context_id = ? AND model_id = ? AND identity_key = ? AND deleted_at IS NULL";
const CONTRIBUTION_INSERT = `INSERT INTO contributions (uuid, workspace_id, record_id, source_id, source_type, data, field_confidences, status,
  supersedes, observed_at, received_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * The accepted contribution of each record and source that the open write group inserted,
 * by source map key: the group holds the database, and only this store's inserts and
 * supersedes write contributions, so a later call of the group finds them here instead of
 * reading them back (a friendly import supersedes what an earlier batch of its group wrote
 * on most lines). A head is only ever superseded by the call that inserts the next accepted
 * contribution of its record and source, which takes its place here. Kept in the group's
 * memo: emptied when any savepoint of the group rolls back, when it ends, and by
 * forgetGroupState.
 */
const groupHeads = (db: Sql) => groupMap<string, SourceHead>(db, "source-heads");

/** Epoch milliseconds of the rows' shared receipt time (a call's rows share one), parsed once. */
function clock(): (iso: string) => number {
  let last = "";
  let ms = 0;
  return (iso) => (iso === last ? ms : ((last = iso), (ms = Date.parse(iso))));
}

/**
 * An ingest on SQLite: one prepared statement per key and per row, run synchronously
 * inside the caller's transaction (raw rows: no object per row, no promise per statement). In-process a statement costs no
 * round trip, so the row at a time is the fastest way (a multi-row INSERT first builds
 * one array of every parameter), and each insert hands back its key.
 */
export const sqliteIngest: IngestStore = {
  async findRecords(db, keys) {
    const found = new Map<string, FoundRecord>();
    if (keys.length === 0) return found;
    const find = sqliteStatement(db, RECORD_FIND).raw();
    for (const k of keys) {
      const row = find.get(k.contextKey, k.modelKey, k.identityKey) as [number, Buffer] | undefined;
      if (row) found.set(identityMapKey(k), { key: Number(row[0]), id: uuidString(row[1]) });
    }
    return found;
  },
  /**
   * The accepted contribution of a source to a record is always the last one inserted
   * for that pair (each insert supersedes the one before), so the index is read backwards
   * by key for one entry instead of checking the pair's whole history for its status
   * (which grew linearly: 2.5 s of a 1M-line import).
   */
  async acceptedFromSources(db, keys) {
    const found = new Map<string, SourceHead>();
    if (keys.length === 0) return found;
    const head = sqliteStatement(
      db,
      `SELECT k.id, k.uuid, k.source_type, k.data, k.field_confidences, k.observed_at, k.received_at, k.created_by, p.uuid
       FROM contributions k LEFT JOIN contributions p ON p.id = k.supersedes
       WHERE k.id = (SELECT id FROM contributions WHERE record_id = ? AND source_id = ? ORDER BY id DESC LIMIT 1) AND k.status = 'accepted'`,
    ).raw();
    const held = groupHeads(db);
    for (const k of keys) {
      const mk = sourceMapKey(k);
      const mine = held?.get(mk);
      if (mine) {
        found.set(mk, mine);
        continue;
      }
      const row = head.get(k.recordKey, k.sourceId) as [number, Buffer, string, string, string | null, string | null, number, string, Buffer | null] | undefined;
      if (!row) continue;
      found.set(mk, {
        key: Number(row[0]),
        id: uuidString(row[1]),
        sourceType: row[2],
        data: row[3],
        confidences: row[4],
        observedAt: row[5],
        receivedAt: new Date(Number(row[6])).toISOString(),
        createdBy: row[7],
        supersedes: row[8] ? uuidString(row[8]) : null,
      });
    }
    return found;
  },
  async insertOrFindRecords(db, workspace, rows) {
    const found = new Map<string, FoundRecord>();
    if (rows.length === 0) return found;
    const ws = await workspaceKey(db, workspace);
    const insert = sqliteStatement(db, RECORD_INSERT + ON_IDENTITY);
    const insertResolved = sqliteStatement(db, RESOLVED_INSERT + ON_IDENTITY);
    const find = sqliteStatement(db, RECORD_FIND).raw();
    const ms = clock();
    for (const r of rows) {
      const at = ms(r.now);
      const id = r.idBytes ?? uuidBytesOf(r.id);
      const v = r.resolved;
      const done = v
        ? insertResolved.run(id, ws, r.contextKey, r.modelKey, r.identityKey, r.createdBy, at, at, v.data, Buffer.from(v.sha256, "hex"), v.issues, v.lineage, r.clean ? 1 : 0, r.contextKey)
        : insert.run(id, ws, r.contextKey, r.modelKey, r.identityKey, r.createdBy, at, at);
      if (done.changes === 1) {
        r.key = Number(done.lastInsertRowid);
        continue;
      }
      const row = find.get(r.contextKey, r.modelKey, r.identityKey) as [number, Buffer];
      found.set(identityMapKey(r), { key: Number(row[0]), id: uuidString(row[1]) });
    }
    return found;
  },
  async insertRecords(db, workspace, rows) {
    if (rows.length === 0) return;
    const ws = await workspaceKey(db, workspace);
    const insert = sqliteStatement(db, RECORD_INSERT);
    const insertResolved = sqliteStatement(db, RESOLVED_INSERT);
    const ms = clock();
    for (const r of rows) {
      const at = ms(r.now);
      const id = r.idBytes ?? uuidBytesOf(r.id);
      const v = r.resolved;
      const done = v
        ? insertResolved.run(id, ws, r.contextKey, r.modelKey, r.identityKey, r.createdBy, at, at, v.data, Buffer.from(v.sha256, "hex"), v.issues, v.lineage, r.clean ? 1 : 0, r.contextKey)
        : insert.run(id, ws, r.contextKey, r.modelKey, r.identityKey, r.createdBy, at, at);
      r.key = Number(done.lastInsertRowid);
    }
  },
  async insertContributions(db, workspace, rows) {
    if (rows.length === 0) return;
    const ws = await workspaceKey(db, workspace);
    const insert = sqliteStatement(db, CONTRIBUTION_INSERT);
    const ms = clock();
    const held = groupHeads(db);
    for (const c of rows) {
      const supersedes = c.supersedesRow?.key ?? c.supersedesKey;
      const key = Number(
        insert.run(c.idBytes ?? uuidBytesOf(c.id), ws, c.recordKey, c.sourceId, c.sourceType, c.data, c.fieldConfidences, c.status, supersedes, c.observedAt, ms(c.receivedAt), c.createdBy)
          .lastInsertRowid,
      );
      c.key = key;
      if (!held || c.status !== "accepted") continue;
      // What acceptedFromSources would read back for this record and source: the same values, as stored.
      held.set(sourceMapKey(c), { key, id: c.id, sourceType: c.sourceType, data: c.data, confidences: c.fieldConfidences, observedAt: c.observedAt, receivedAt: c.receivedAt, createdBy: c.createdBy, supersedes: c.supersedesId });
    }
  },
  async markSuperseded(db, keys) {
    if (keys.length === 0) return;
    const update = sqliteStatement(db, "UPDATE contributions SET status = 'superseded' WHERE id = ?");
    for (const key of keys) update.run(key);
  },
};
