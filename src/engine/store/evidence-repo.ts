import type { ListQuery } from "../../contract/list-query.js";
import { LIST_SPECS } from "../../contract/list-query.js";
import { listRows, type RowPage } from "./list-sql.js";
import type { Sql } from "./sql.js";

/** A record row, JSON columns still as text. */
export interface RecordRow {
  id: string;
  workspace: string;
  contextId: string;
  modelId: string;
  identityKey: string | null;
  data: string;
  sha256: string;
  issues: string;
  lineage: string;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  freshness: "resolved" | "stale" | "computing";
}

/** A contribution row; data and confidences are JSON keyed by fieldId. */
export interface ContributionRow {
  id: string;
  workspace: string;
  contextId: string;
  modelId: string;
  recordId: string;
  sourceId: string;
  sourceType: string;
  data: string;
  fieldConfidences: string;
  status: "accepted" | "superseded";
  supersedes: string | null;
  observedAt: string | null;
  receivedAt: string;
  createdBy: string;
}

const RECORD_SELECT = `r.id, r.workspace, r.context_id AS "contextId", r.model_id AS "modelId", r.identity_key AS "identityKey",
  r.data, r.sha256, r.issues, r.lineage, r.created_at AS "createdAt", r.updated_at AS "updatedAt", r.created_by AS "createdBy",
  c.freshness AS freshness`;
const contributionColumns = (p: string) => `${p}id, ${p}workspace, ${p}context_id AS "contextId", ${p}model_id AS "modelId",
  ${p}record_id AS "recordId", ${p}source_id AS "sourceId", ${p}source_type AS "sourceType", ${p}data,
  ${p}field_confidences AS "fieldConfidences", ${p}status, ${p}supersedes, ${p}observed_at AS "observedAt",
  ${p}received_at AS "receivedAt", ${p}created_by AS "createdBy"`;
const CONTRIBUTION_SELECT = contributionColumns("");

/**
 * Contributions of some contexts, through their records: no index leads contributions by
 * context (it would cost an interleaved import as much as the rows; see the SQLite
 * migration 0004), while live records are indexed by context and soft-deleted ones too.
 */
const CONTRIBUTIONS_OF_CONTEXTS = {
  sql: (list: string) =>
    `k.record_id IN (SELECT id FROM records WHERE context_id IN (${list}) AND deleted_at IS NULL
      UNION ALL SELECT id FROM records WHERE context_id IN (${list}) AND deleted_at IS NOT NULL)`,
  uses: 2,
};

/** A record to insert: new records start unresolved. */
export interface RecordInsert {
  id: string;
  contextId: string;
  modelId: string;
  identityKey: string;
  sha256: string;
  now: string;
  createdBy: string;
}

/** A contribution to insert (the workspace is the repository's). */
export type ContributionInsert = Omit<ContributionRow, "workspace">;

const RECORD_INSERT = `INSERT INTO records (id, workspace, context_id, model_id, identity_key, data, sha256, issues, lineage, created_at, updated_at, created_by) VALUES `;
const RECORD_VALUES = "(?, ?, ?, ?, ?, '{}', ?, '[]', '{}', ?, ?, ?)";
const CONTRIBUTION_INSERT = `INSERT INTO contributions (id, workspace, context_id, model_id, record_id, source_id, source_type, data,
  field_confidences, status, supersedes, observed_at, received_at, created_by) VALUES `;
const CONTRIBUTION_VALUES = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
/** Rows per multi-row statement: one bulk request's worth, far below SQLite's variable limit. */
const CHUNK = 100;

const sqlCache = new Map<string, string>();
/** `head` followed by `n` copies of `values` (cached: the statement cache keys on the text). */
function rowsSql(head: string, values: string, n: number): string {
  const key = `${n}:${head}`;
  let sql = sqlCache.get(key);
  if (!sql) sqlCache.set(key, (sql = head + Array(n).fill(values).join(", ")));
  return sql;
}

function placeholders(n: number): string {
  return Array(n).fill("?").join(", ");
}

async function forChunks<T>(items: readonly T[], fn: (chunk: readonly T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += CHUNK) await fn(items.length <= CHUNK ? items : items.slice(i, i + CHUNK));
}

/** A record looked up by its identity: context, model and identity key. */
export interface IdentityKey {
  contextId: string;
  modelId: string;
  identityKey: string;
}

/** One source's contribution head to look up: the accepted contribution of `sourceId` to `recordId`. */
export interface SourceKey {
  recordId: string;
  sourceId: string;
}

/**
 * The lookups of an ingest, by list: each store answers them its fastest way (SQLite one
 * indexed statement per key, which costs no round trip; PostgreSQL one query for all).
 */
export interface EvidenceLookups {
  /** Ids of live records by identity; keys without a record are absent from the map (keyed by {@link identityMapKey}). */
  findRecordIds(db: Sql, keys: readonly IdentityKey[]): Promise<Map<string, string>>;
  /** The accepted contribution of each (record, source) that has one (keyed by {@link sourceMapKey}). */
  acceptedFromSources(db: Sql, keys: readonly SourceKey[]): Promise<Map<string, string>>;
}

/** The map key of an identity lookup. */
export const identityMapKey = (k: IdentityKey): string => `${k.contextId}\u0000${k.modelId}\u0000${k.identityKey}`;
/** The map key of a source lookup. */
export const sourceMapKey = (k: SourceKey): string => `${k.recordId}\u0000${k.sourceId}`;

/** Records and contributions, scoped to one workspace. */
export function createEvidenceRepo(db: Sql, workspace: string) {
  return {
    getRecord(id: string): Promise<RecordRow | undefined> {
      return db.get<RecordRow>(
        `SELECT ${RECORD_SELECT} FROM records r JOIN contexts c ON c.id = r.context_id
        WHERE r.id = ? AND r.workspace = ? AND r.deleted_at IS NULL AND c.deleted_at IS NULL`,
        [id.toLowerCase(), workspace],
      );
    },
    /** Live records by id (unknown ids are left out). */
    async getRecords(ids: readonly string[]): Promise<RecordRow[]> {
      const out: RecordRow[] = [];
      await forChunks(ids, async (chunk) => {
        out.push(
          ...(await db.all<RecordRow>(
            `SELECT ${RECORD_SELECT} FROM records r JOIN contexts c ON c.id = r.context_id
            WHERE r.id IN (${placeholders(chunk.length)}) AND r.workspace = ? AND r.deleted_at IS NULL AND c.deleted_at IS NULL`,
            [...chunk.map((id) => id.toLowerCase()), workspace],
          )),
        );
      });
      return out;
    },
    /** Inserts new records (data `{}`, not resolved yet), a hundred rows per statement. */
    insertRecords(records: readonly RecordInsert[]): Promise<void> {
      return forChunks(records, (chunk) => {
        const params: unknown[] = [];
        for (const r of chunk) params.push(r.id, workspace, r.contextId, r.modelId, r.identityKey, r.sha256, r.now, r.now, r.createdBy);
        return db.run(rowsSql(RECORD_INSERT, RECORD_VALUES, chunk.length), params);
      });
    },
    async softDeleteRecord(id: string, now: string): Promise<void> {
      await db.run("UPDATE records SET deleted_at = ?, updated_at = ? WHERE id = ?", [now, now, id]);
    },
    listRecords(query: ListQuery): Promise<RowPage<RecordRow>> {
      return listRows<RecordRow>(
        db,
        {
          select: RECORD_SELECT,
          from: "records r JOIN contexts c ON c.id = r.context_id",
          where: "r.workspace = ? AND r.deleted_at IS NULL AND c.deleted_at IS NULL",
          params: [workspace],
          id: "r.id",
          columns: {
            contextId: { sql: "r.context_id", kind: "text" },
            modelId: { sql: "r.model_id", kind: "text" },
            freshness: { sql: "c.freshness", kind: "text" },
            createdAt: { sql: "r.created_at", kind: "text" },
            updatedAt: { sql: "r.updated_at", kind: "text" },
          },
        },
        LIST_SPECS.records,
        query,
      );
    },
    /** Marks contributions superseded. */
    markSuperseded(ids: readonly string[]): Promise<void> {
      return forChunks(ids, (chunk) => db.run(`UPDATE contributions SET status = 'superseded' WHERE id IN (${placeholders(chunk.length)})`, chunk));
    },
    /** Inserts contributions, a hundred rows per statement. */
    insertContributions(rows: readonly ContributionInsert[]): Promise<void> {
      return forChunks(rows, (chunk) => {
        const params: unknown[] = [];
        for (const c of chunk) {
          params.push(c.id, workspace, c.contextId, c.modelId, c.recordId, c.sourceId, c.sourceType, c.data, c.fieldConfidences,
            c.status, c.supersedes, c.observedAt, c.receivedAt, c.createdBy);
        }
        return db.run(rowsSql(CONTRIBUTION_INSERT, CONTRIBUTION_VALUES, chunk.length), params);
      });
    },
    getContribution(id: string): Promise<ContributionRow | undefined> {
      return db.get<ContributionRow>(`SELECT ${CONTRIBUTION_SELECT} FROM contributions WHERE id = ? AND workspace = ?`, [id.toLowerCase(), workspace]);
    },
    /** Contributions by id (any order; unknown ids are left out). */
    async getContributions(ids: readonly string[]): Promise<ContributionRow[]> {
      const out: ContributionRow[] = [];
      await forChunks(ids, async (chunk) => {
        out.push(...(await db.all<ContributionRow>(`SELECT ${CONTRIBUTION_SELECT} FROM contributions WHERE workspace = ? AND id IN (${placeholders(chunk.length)})`, [workspace, ...chunk])));
      });
      return out;
    },
    /** Every contribution (any status) of a record, oldest first (for lineage listings). */
    contributionsOfRecord(recordId: string): Promise<ContributionRow[]> {
      return db.all<ContributionRow>(`SELECT ${CONTRIBUTION_SELECT} FROM contributions WHERE record_id = ? ORDER BY received_at, id`, [recordId]);
    },
    listContributions(query: ListQuery): Promise<RowPage<ContributionRow>> {
      return listRows<ContributionRow>(
        db,
        {
          select: contributionColumns("k."),
          from: "contributions k JOIN contexts c ON c.id = k.context_id",
          where: "k.workspace = ? AND c.deleted_at IS NULL",
          params: [workspace],
          id: "k.id",
          columns: {
            contextId: { sql: "k.context_id", kind: "text", membership: CONTRIBUTIONS_OF_CONTEXTS },
            modelId: { sql: "k.model_id", kind: "text" },
            recordId: { sql: "k.record_id", kind: "text" },
            sourceId: { sql: "k.source_id", kind: "text" },
            sourceType: { sql: "k.source_type", kind: "text" },
            status: { sql: "k.status", kind: "text" },
            receivedAt: { sql: "k.received_at", kind: "text" },
          },
        },
        LIST_SPECS.contributions,
        query,
      );
    },
  };
}

/** The evidence repository type. */
export type EvidenceRepo = ReturnType<typeof createEvidenceRepo>;
