import type { ListQuery } from "../../contract/list-query.js";
import { LIST_SPECS } from "../../contract/list-query.js";
import type { Store } from "./db.js";
import { listRows, type RowPage } from "./list-sql.js";
import { statements } from "./statements.js";

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

const RECORD_SELECT = `r.id, r.workspace, r.context_id AS contextId, r.model_id AS modelId, r.identity_key AS identityKey,
  r.data, r.sha256, r.issues, r.lineage, r.created_at AS createdAt, r.updated_at AS updatedAt, r.created_by AS createdBy,
  c.freshness AS freshness`;
const contributionColumns = (p: string) => `${p}id, ${p}workspace, ${p}context_id AS contextId, ${p}model_id AS modelId,
  ${p}record_id AS recordId, ${p}source_id AS sourceId, ${p}source_type AS sourceType, ${p}data,
  ${p}field_confidences AS fieldConfidences, ${p}status, ${p}supersedes, ${p}observed_at AS observedAt,
  ${p}received_at AS receivedAt, ${p}created_by AS createdBy`;
const CONTRIBUTION_SELECT = contributionColumns("");

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

function forChunks<T>(items: readonly T[], fn: (chunk: readonly T[]) => void): void {
  for (let i = 0; i < items.length; i += CHUNK) fn(items.length <= CHUNK ? items : items.slice(i, i + CHUNK));
}

/** Records and contributions, scoped to one workspace. */
export function createEvidenceRepo(store: Store, workspace: string) {
  const q = statements(store.raw);
  return {
    getRecord(id: string): RecordRow | undefined {
      return q(`SELECT ${RECORD_SELECT} FROM records r JOIN contexts c ON c.id = r.context_id
        WHERE r.id = ? AND r.workspace = ? AND r.deleted_at IS NULL AND c.deleted_at IS NULL`).get(id.toLowerCase(), workspace) as RecordRow | undefined;
    },
    findRecordId(contextId: string, modelId: string, identityKey: string): string | undefined {
      return q("SELECT id FROM records WHERE context_id = ? AND model_id = ? AND identity_key = ? AND deleted_at IS NULL")
        .pluck()
        .get(contextId, modelId, identityKey) as string | undefined;
    },
    /** Inserts new records (data `{}`, not resolved yet), a hundred rows per statement. */
    insertRecords(records: readonly RecordInsert[]): void {
      forChunks(records, (chunk) => {
        const params: unknown[] = [];
        for (const r of chunk) params.push(r.id, workspace, r.contextId, r.modelId, r.identityKey, r.sha256, r.now, r.now, r.createdBy);
        q(rowsSql(RECORD_INSERT, RECORD_VALUES, chunk.length)).run(params);
      });
    },
    softDeleteRecord(id: string, now: string): void {
      q("UPDATE records SET deleted_at = ?, updated_at = ? WHERE id = ?").run(now, now, id);
    },
    listRecords(query: ListQuery): RowPage<RecordRow> {
      return listRows<RecordRow>(
        store.raw,
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
    /**
     * The accepted contribution of `sourceId` to a record, if any. It is always the last
     * one inserted for that pair (each insert supersedes the one before), so the index is
     * read backwards by rowid for one entry instead of checking the pair's whole history
     * for its status (which grew linearly: 2.5 s of a 1M-line import).
     */
    acceptedFromSource(recordId: string, sourceId: string): string | undefined {
      return q(`SELECT id FROM (SELECT id, status FROM contributions WHERE record_id = ? AND source_id = ? ORDER BY rowid DESC LIMIT 1)
        WHERE status = 'accepted'`)
        .pluck()
        .get(recordId, sourceId) as string | undefined;
    },
    /** Marks contributions superseded. */
    markSuperseded(ids: readonly string[]): void {
      forChunks(ids, (chunk) => {
        q(`UPDATE contributions SET status = 'superseded' WHERE id IN (${placeholders(chunk.length)})`).run(chunk);
      });
    },
    /** Inserts contributions, a hundred rows per statement. */
    insertContributions(rows: readonly ContributionInsert[]): void {
      forChunks(rows, (chunk) => {
        const params: unknown[] = [];
        for (const c of chunk) {
          params.push(c.id, workspace, c.contextId, c.modelId, c.recordId, c.sourceId, c.sourceType, c.data, c.fieldConfidences,
            c.status, c.supersedes, c.observedAt, c.receivedAt, c.createdBy);
        }
        q(rowsSql(CONTRIBUTION_INSERT, CONTRIBUTION_VALUES, chunk.length)).run(params);
      });
    },
    getContribution(id: string): ContributionRow | undefined {
      return q(`SELECT ${CONTRIBUTION_SELECT} FROM contributions WHERE id = ? AND workspace = ?`).get(id.toLowerCase(), workspace) as ContributionRow | undefined;
    },
    /** Contributions by id (any order; unknown ids are left out). */
    getContributions(ids: readonly string[]): ContributionRow[] {
      const out: ContributionRow[] = [];
      forChunks(ids, (chunk) => {
        out.push(...(q(`SELECT ${CONTRIBUTION_SELECT} FROM contributions WHERE workspace = ? AND id IN (${placeholders(chunk.length)})`).all(workspace, ...chunk) as ContributionRow[]));
      });
      return out;
    },
    /** Every contribution (any status) of a record, oldest first (for lineage listings). */
    contributionsOfRecord(recordId: string): ContributionRow[] {
      return q(`SELECT ${CONTRIBUTION_SELECT} FROM contributions WHERE record_id = ? ORDER BY received_at, id`).all(recordId) as ContributionRow[];
    },
    listContributions(query: ListQuery): RowPage<ContributionRow> {
      return listRows<ContributionRow>(
        store.raw,
        {
          select: contributionColumns("k."),
          from: "contributions k JOIN contexts c ON c.id = k.context_id",
          where: "k.workspace = ? AND c.deleted_at IS NULL",
          params: [workspace],
          id: "k.id",
          columns: {
            contextId: { sql: "k.context_id", kind: "text" },
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
