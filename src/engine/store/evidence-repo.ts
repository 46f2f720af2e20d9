import type { ListQuery } from "../../contract/list-query.js";
import { LIST_SPECS } from "../../contract/list-query.js";
import { decodeConfidences, decodeValues, fieldIdsOf, storedKeys } from "./field-values-codec.js";
import { listRows, type RowPage } from "./list-sql.js";
import type { Sql } from "./sql.js";
import { EMPTY_SHA256 } from "./values.js";
import { WORKSPACE } from "./workspace-sql.js";
import { pushAll } from "../../portable/arrays.js";
import { flat } from "../../util/flat-string.js";

/** A record row; its JSON columns as text (a record never resolved reads as `{}`). */
export interface RecordRow {
  key: number;
  id: string;
  contextKey: number;
  contextId: string;
  modelKey: number;
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

/** A contribution row; data and confidences keyed by fieldId. */
export interface ContributionRow {
  key: number;
  id: string;
  contextId: string;
  modelId: string;
  recordId: string;
  sourceId: string;
  sourceType: string;
  data: Record<string, unknown>;
  fieldConfidences: Record<string, number>;
  status: "accepted" | "superseded";
  supersedes: string | null;
  observedAt: string | null;
  receivedAt: string;
  createdBy: string;
}

const RECORD_SELECT = `r.id AS key, r.uuid AS id, r.context_id AS "contextKey", c.uuid AS "contextId", r.model_id AS "modelKey", m.uuid AS "modelId",
  r.identity_key AS "identityKey", r.data, r.sha256, r.issues, r.lineage, r.created_at AS "createdAt", r.updated_at AS "updatedAt",
  r.created_by AS "createdBy", c.freshness AS freshness`;
const RECORD_FROM = "records r JOIN contexts c ON c.id = r.context_id JOIN models m ON m.id = r.model_id";

type RawRecord = Omit<RecordRow, "data" | "sha256" | "issues" | "lineage"> & { data: string | null; sha256: string | null; issues: string | null; lineage: string | null };

const toRecordRow = (r: RawRecord): RecordRow => ({
  ...r,
  key: Number(r.key),
  contextKey: Number(r.contextKey),
  modelKey: Number(r.modelKey),
  data: r.data ?? "{}",
  sha256: r.sha256 ?? EMPTY_SHA256,
  issues: r.issues ?? "[]",
  lineage: r.lineage ?? "{}",
});

const CONTRIBUTION_SELECT = `k.id AS key, k.uuid AS id, c.uuid AS "contextId", m.uuid AS "modelId", r.uuid AS "recordId", k.source_id AS "sourceId",
  k.source_type AS "sourceType", k.data, k.field_confidences AS "fieldConfidences", k.status, p.uuid AS supersedes,
  k.observed_at AS "observedAt", k.received_at AS "receivedAt", k.created_by AS "createdBy"`;
const CONTRIBUTION_FROM = `contributions k JOIN records r ON r.id = k.record_id JOIN contexts c ON c.id = r.context_id
  JOIN models m ON m.id = r.model_id LEFT JOIN contributions p ON p.id = k.supersedes`;

type RawContribution = Omit<ContributionRow, "data" | "fieldConfidences"> & { data: string; fieldConfidences: string | null };

/** Rows read with their stored values, decoded to fieldIds (one lookup for every key of the page). */
async function decodeContributions(db: Sql, rows: RawContribution[]): Promise<ContributionRow[]> {
  const keys = new Set<number>();
  for (const r of rows) {
    storedKeys(r.data, keys);
    storedKeys(r.fieldConfidences, keys);
  }
  const ids = await fieldIdsOf(db, keys);
  return rows.map((r) => {
    const data = decodeValues(r.data, ids);
    return { ...r, key: Number(r.key), data, fieldConfidences: decodeConfidences(r.fieldConfidences, data, ids) };
  });
}

/**
 * A context's contributions, through its records: no index leads contributions by context
 * (it would cost an interleaved import as much as the rows), while live records are
 * indexed by context and soft-deleted ones too.
 */
const CONTRIBUTIONS_OF_CONTEXTS = {
  sql: (list: string) =>
    `k.record_id IN (SELECT id FROM records WHERE context_id IN (SELECT id FROM contexts WHERE uuid IN (${list})) AND deleted_at IS NULL
      UNION ALL SELECT id FROM records WHERE context_id IN (SELECT id FROM contexts WHERE uuid IN (${list})) AND deleted_at IS NOT NULL)`,
  uses: 2,
};

/**
 * The `changed_version` of a record no pass has resolved yet: above every evidence version,
 * so the next pass of its context reads it as changed; its first pass sets it back to 0.
 */
export const UNRESOLVED_VERSION = Number.MAX_SAFE_INTEGER;

/** A record's resolved columns, as a pass writes them (JSON texts and the hex digest of `data`). */
export interface ResolvedColumns {
  data: string;
  sha256: string;
  issues: string;
  lineage: string;
}

/**
 * A record to insert: unresolved, or resolved already by its writer (`resolved`, see
 * pipeline/stages/resolve-alone.ts), when it carries its context's evidence version as its
 * `changed_version` (the next pass of the context reads it, and finds nothing to write),
 * or, written in a write group whose passes resolve its context before the group commits,
 * 0 (`clean`: no pass needs to read it). `key` is set when it is written.
 */
export interface RecordInsert {
  key?: number;
  id: string;
  /** The id's 16 bytes, when the writer made it. */
  idBytes?: Buffer;
  contextKey: number;
  modelKey: number;
  identityKey: string;
  now: string;
  createdBy: string;
  resolved?: ResolvedColumns;
  clean?: boolean;
}

/**
 * A contribution to insert, its values already in their stored form (field-values-codec).
 * It supersedes a stored contribution (`supersedesKey`) or one written before it in the
 * same call (`supersedesRow`). `key` is set when it is written.
 */
export interface ContributionInsert {
  key?: number;
  id: string;
  /** The id's 16 bytes, when the writer made it. */
  idBytes?: Buffer;
  recordKey: number;
  sourceId: string;
  sourceType: string;
  data: string;
  fieldConfidences: string | null;
  status: "accepted" | "superseded";
  supersedesKey: number | null;
  supersedesRow?: ContributionInsert;
  /** The id of the contribution it supersedes (either kind). */
  supersedesId: string | null;
  observedAt: string | null;
  receivedAt: string;
  createdBy: string;
}

/** A record looked up by its identity: context, model and identity key. */
export interface IdentityKey {
  contextKey: number;
  modelKey: number;
  identityKey: string;
}

/** One source's contribution head to look up: the accepted contribution of `sourceId` to record `recordKey`. */
export interface SourceKey {
  recordKey: number;
  sourceId: string;
}

/**
 * A source's accepted contribution to a record, as a writer compares the next one of the
 * same source with it (see evidence/head-evidence.ts): its stored values and confidences
 * (as stored: text), source type and observedAt, and what answering with it needs.
 */
export interface SourceHead {
  id: string;
  key: number;
  sourceType: string;
  data: string;
  confidences: string | null;
  observedAt: string | null;
  receivedAt: string;
  createdBy: string;
  /** The id of the contribution it superseded. */
  supersedes: string | null;
}

/** A record found by identity. */
export interface FoundRecord {
  key: number;
  id: string;
}

/**
 * What an ingest asks of the store, by list: each store does it its fastest way (SQLite
 * prepared statements one row at a time, which cost no round trip; PostgreSQL one
 * statement for all the rows of a call). Every method runs in the caller's transaction.
 */
export interface IngestStore {
  /** Live records by identity; keys without a record are absent from the map (keyed by {@link identityMapKey}). */
  findRecords(db: Sql, keys: readonly IdentityKey[]): Promise<Map<string, FoundRecord>>;
  /** The accepted contribution of each (record, source) that has one (keyed by {@link sourceMapKey}). */
  acceptedFromSources(db: Sql, keys: readonly SourceKey[]): Promise<Map<string, SourceHead>>;
  /**
   * Finds and creates in one step (a store that writes row by row, where a lookup before
   * every insert would probe the identity index twice): each record is inserted, in order,
   * unless a live one has its identity; the inserted ones get their key, and the live ones
   * found instead are returned (keyed by {@link identityMapKey}). A store without it is
   * asked `findRecords` first and `insertRecords` at the end.
   */
  insertOrFindRecords?(db: Sql, workspace: string, rows: readonly RecordInsert[]): Promise<Map<string, FoundRecord>>;
  /**
   * Inserts new records of `workspace` in order; sets each one's key. A row with `resolved`
   * set (its writer resolved it alone, in a write group) is written so, or, by a store that
   * cannot, unresolved with its `resolved` and `clean` cleared (its pass resolves it).
   */
  insertRecords(db: Sql, workspace: string, rows: readonly RecordInsert[]): Promise<void>;
  /** Inserts contributions of `workspace` in order (a row may supersede one before it); sets each one's key. */
  insertContributions(db: Sql, workspace: string, rows: readonly ContributionInsert[]): Promise<void>;
  /** Marks stored contributions superseded, by key. */
  markSuperseded(db: Sql, keys: readonly number[]): Promise<void>;
}

/** The map key of an identity lookup. */
export const identityMapKey = (k: IdentityKey): string => flat(`${k.contextKey}\u0000${k.modelKey}\u0000${k.identityKey}`);
/** The map key of a source lookup. */
export const sourceMapKey = (k: SourceKey): string => flat(`${k.recordKey}\u0000${k.sourceId}`);

/** Rows per multi-row statement: one bulk request's worth, far below SQLite's variable limit. */
const CHUNK = 100;

const placeholders = (n: number) => Array(n).fill("?").join(", ");

async function forChunks<T>(items: readonly T[], fn: (chunk: readonly T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += CHUNK) await fn(items.length <= CHUNK ? items : items.slice(i, i + CHUNK));
}

/** The integer key of a workspace, read once per store (workspaces are never removed). */
export async function workspaceKey(db: Sql, name: string): Promise<number | undefined> {
  const memo = `workspace:${name}`;
  const known = db.memo.get(memo) as number | undefined;
  if (known !== undefined) return known;
  const row = await db.get<{ id: number }>("SELECT id FROM workspaces WHERE name = ?", [name]);
  if (row) db.memo.set(memo, Number(row.id));
  return row ? Number(row.id) : undefined;
}

/** Records and contributions, scoped to one workspace. */
export function createEvidenceRepo(db: Sql, workspace: string) {
  const d = db.dialect;
  return {
    async getRecord(id: string): Promise<RecordRow | undefined> {
      const row = await db.get<RawRecord>(
        `SELECT ${RECORD_SELECT} FROM ${RECORD_FROM}
        WHERE r.uuid = ? AND r.workspace_id = ${WORKSPACE} AND r.deleted_at IS NULL AND c.deleted_at IS NULL`,
        [d.uuid(id), workspace],
      );
      return row ? toRecordRow(row) : undefined;
    },
    /** Live records by id (unknown ids are left out). */
    async getRecords(ids: readonly string[]): Promise<RecordRow[]> {
      const out: RecordRow[] = [];
      await forChunks(ids, async (chunk) => {
        const rows = await db.all<RawRecord>(
          `SELECT ${RECORD_SELECT} FROM ${RECORD_FROM}
          WHERE r.uuid IN (${placeholders(chunk.length)}) AND r.workspace_id = ${WORKSPACE} AND r.deleted_at IS NULL AND c.deleted_at IS NULL`,
          [...chunk.map((id) => d.uuid(id)), workspace],
        );
        pushAll(out, rows.map(toRecordRow));
      });
      return out;
    },
    async softDeleteRecord(key: number, now: string): Promise<void> {
      await db.run("UPDATE records SET deleted_at = ?, updated_at = ? WHERE id = ?", [d.time(now), d.time(now), key]);
    },
    listRecords(query: ListQuery): Promise<RowPage<RecordRow>> {
      return listRows<RawRecord>(
        db,
        {
          select: RECORD_SELECT,
          from: RECORD_FROM,
          where: `r.workspace_id = ${WORKSPACE} AND r.deleted_at IS NULL AND c.deleted_at IS NULL`,
          params: [workspace],
          id: "r.uuid",
          columns: {
            contextId: { sql: "c.uuid", kind: "uuid" },
            modelId: { sql: "m.uuid", kind: "uuid" },
            freshness: { sql: "c.freshness", kind: "text" },
            createdAt: { sql: "r.created_at", kind: "time" },
            updatedAt: { sql: "r.updated_at", kind: "time" },
          },
        },
        LIST_SPECS.records,
        query,
      ).then((page) => ({ ...page, rows: page.rows.map(toRecordRow) }));
    },
    async getContribution(id: string): Promise<ContributionRow | undefined> {
      const row = await db.get<RawContribution>(`SELECT ${CONTRIBUTION_SELECT} FROM ${CONTRIBUTION_FROM} WHERE k.uuid = ? AND k.workspace_id = ${WORKSPACE}`, [d.uuid(id), workspace]);
      return row ? (await decodeContributions(db, [row]))[0] : undefined;
    },
    /** Contributions by id (any order; unknown ids are left out). */
    async getContributions(ids: readonly string[]): Promise<ContributionRow[]> {
      const out: RawContribution[] = [];
      await forChunks(ids, async (chunk) => {
        pushAll(
          out,
          await db.all<RawContribution>(`SELECT ${CONTRIBUTION_SELECT} FROM ${CONTRIBUTION_FROM} WHERE k.workspace_id = ${WORKSPACE} AND k.uuid IN (${placeholders(chunk.length)})`, [
            workspace,
            ...chunk.map((id) => d.uuid(id)),
          ]),
        );
      });
      return decodeContributions(db, out);
    },
    /** Contributions by key, in the order given (unknown keys are left out). */
    async getContributionsByKey(keys: readonly number[]): Promise<ContributionRow[]> {
      const out: RawContribution[] = [];
      await forChunks(keys, async (chunk) => {
        pushAll(out, await db.all<RawContribution>(`SELECT ${CONTRIBUTION_SELECT} FROM ${CONTRIBUTION_FROM} WHERE k.workspace_id = ${WORKSPACE} AND k.id IN (${placeholders(chunk.length)})`, [workspace, ...chunk]));
      });
      const rows = await decodeContributions(db, out);
      const byKey = new Map(rows.map((r) => [r.key, r]));
      return keys.flatMap((k) => byKey.get(k) ?? []);
    },
    /** Every contribution (any status) of a record, oldest first (for lineage listings). */
    async contributionsOfRecord(recordKey: number): Promise<ContributionRow[]> {
      const rows = await db.all<RawContribution>(`SELECT ${CONTRIBUTION_SELECT} FROM ${CONTRIBUTION_FROM} WHERE k.record_id = ? ORDER BY k.received_at, k.uuid`, [recordKey]);
      return decodeContributions(db, rows);
    },
    async listContributions(query: ListQuery): Promise<RowPage<ContributionRow>> {
      const page = await listRows<RawContribution>(
        db,
        {
          select: CONTRIBUTION_SELECT,
          from: CONTRIBUTION_FROM,
          where: `k.workspace_id = ${WORKSPACE} AND c.deleted_at IS NULL`,
          params: [workspace],
          id: "k.uuid",
          columns: {
            contextId: { sql: "c.uuid", kind: "uuid", membership: CONTRIBUTIONS_OF_CONTEXTS },
            modelId: { sql: "m.uuid", kind: "uuid" },
            recordId: { sql: "r.uuid", kind: "uuid" },
            sourceId: { sql: "k.source_id", kind: "text" },
            sourceType: { sql: "k.source_type", kind: "text" },
            status: { sql: "k.status", kind: "text" },
            receivedAt: { sql: "k.received_at", kind: "time" },
          },
        },
        LIST_SPECS.contributions,
        query,
      );
      return { ...page, rows: await decodeContributions(db, page.rows) };
    },
  };
}

/** The evidence repository type. */
export type EvidenceRepo = ReturnType<typeof createEvidenceRepo>;
