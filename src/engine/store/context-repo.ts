import type { ListQuery } from "../../contract/list-query.js";
import { LIST_SPECS } from "../../contract/list-query.js";
import { listRows, type RowPage } from "./list-sql.js";
import type { LockOption } from "./model-repo.js";
import { forgetGroupState, groupMap, type Sql } from "./sql.js";
import { WORKSPACE } from "./workspace-sql.js";

/** A context row as the engine uses it. */
export interface ContextRow {
  /** The store's integer key; 0 until inserted. */
  key: number;
  id: string;
  workspace: string;
  name: string | null;
  type: string | null;
  metadata: Record<string, unknown>;
  status: "active" | "completed" | "archived";
  freshness: "resolved" | "stale" | "computing";
  evidenceVersion: number;
  resolvedVersion: number;
  claimedBy: string | null;
  leaseExpiresAt: number | null;
  claimToken: number;
  createdAt: string;
  updatedAt: string;
  resolvedAt: string | null;
  deletedAt: string | null;
}

const columns = (p: string) => `${p}id AS key, ${p}uuid AS id, ${p}name, ${p}type, ${p}metadata, ${p}status, ${p}freshness,
  ${p}evidence_version AS "evidenceVersion", ${p}resolved_version AS "resolvedVersion", ${p}claimed_by AS "claimedBy",
  ${p}claim_token AS "claimToken", ${p}created_at AS "createdAt", ${p}updated_at AS "updatedAt",
  ${p}resolved_at AS "resolvedAt", ${p}deleted_at AS "deletedAt"`;

type RawContextRow = Omit<ContextRow, "metadata" | "leaseExpiresAt" | "workspace"> & { metadata: string; lease: number | null };
const parseRow = (workspace: string) => (row: RawContextRow): ContextRow => {
  const { lease, ...rest } = row;
  return {
    ...rest,
    workspace,
    key: Number(row.key),
    evidenceVersion: Number(row.evidenceVersion),
    resolvedVersion: Number(row.resolvedVersion),
    claimToken: Number(row.claimToken),
    leaseExpiresAt: lease === null ? null : Number(lease),
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
};

/** What a writer of evidence needs to know about a context. */
export interface ContextState {
  key: number;
  id: string;
  status: ContextRow["status"];
}

/** Counts behind `include=summary`. */
export interface ContextCounts {
  recordsByModel: Record<string, number>;
  evaluations: { total: number; passed: number; failed: number };
}

/** What an update of a context may set. */
export type ContextSet = Partial<Pick<ContextRow, "name" | "type" | "metadata" | "status" | "updatedAt" | "deletedAt">>;

/** Context persistence, scoped to one workspace. */
export function createContextRepo(db: Sql, workspace: string) {
  const d = db.dialect;
  const select = `SELECT ${columns("c.")}, ${d.epochMs("c.lease_expires_at")} AS lease FROM contexts c`;
  const parse = parseRow(workspace);
  return {
    /** Inserts a new context; sets the key the store gives it. */
    async insert(row: ContextRow): Promise<void> {
      const inserted = await db.get<{ id: number }>(
        `INSERT INTO contexts (uuid, workspace_id, name, type, metadata, status, freshness, created_at, updated_at)
         VALUES (?, ${WORKSPACE}, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [d.uuid(row.id), workspace, row.name, row.type, JSON.stringify(row.metadata), row.status, row.freshness, d.time(row.createdAt), d.time(row.updatedAt)],
      );
      row.key = Number(inserted!.id);
    },
    /** A live context; `lock` holds its row until the transaction ends (writers of one context take turns). */
    async get(id: string, options: LockOption = {}): Promise<ContextRow | undefined> {
      const row = await db.get<RawContextRow>(
        `${select} WHERE c.workspace_id = ${WORKSPACE} AND c.uuid = ? AND c.deleted_at IS NULL${options.lock ? ` ${d.forUpdate}` : ""}`,
        [workspace, d.uuid(id)],
      );
      return row ? parse(row) : undefined;
    },
    /**
     * The key, id and status of live contexts (what a writer of evidence needs), in one
     * query; with `lock`, their rows are held in key order (so two writers over the same
     * contexts cannot deadlock) until the transaction ends: `true` against every other
     * writer of them, `"key-share"` only against status changes (which lock with `true`),
     * so writers of evidence into the same contexts run side by side (PostgreSQL).
     */
    async getStates(ids: readonly string[], options: { lock?: boolean | "key-share" } = {}): Promise<ContextState[]> {
      // Inside a write group the states read by its earlier calls still hold (every write
      // to a context's status forgets them): an import's batches name the same contexts.
      const known = groupMap<string, ContextState>(db, `context-states:${workspace}`);
      const wanted = known ? ids.filter((id) => !known.has(id)) : ids;
      const rows =
        wanted.length === 0
          ? []
          : await db.all<ContextState>(
              `SELECT id AS key, uuid AS id, status FROM contexts WHERE workspace_id = ${WORKSPACE} AND uuid IN (${wanted.map(() => "?").join(", ")}) AND deleted_at IS NULL
         ORDER BY id${options.lock ? ` ${options.lock === "key-share" && !db.serialized ? d.forKeyShare : d.forUpdate}` : ""}`,
              [workspace, ...wanted.map((id) => d.uuid(id))],
            );
      for (const r of rows) r.key = Number(r.key);
      if (!known) return rows;
      for (const r of rows) known.set(r.id, r);
      return ids.flatMap((id) => known.get(id) ?? []);
    },
    async update(id: string, set: ContextSet): Promise<void> {
      const parts: string[] = [];
      const params: unknown[] = [];
      const put = (column: string, value: unknown) => {
        parts.push(`${column} = ?`);
        params.push(value);
      };
      if (set.name !== undefined) put("name", set.name);
      if (set.type !== undefined) put("type", set.type);
      if (set.metadata !== undefined) put("metadata", JSON.stringify(set.metadata));
      if (set.status !== undefined) put("status", set.status);
      if (set.updatedAt !== undefined) put("updated_at", d.time(set.updatedAt));
      if (set.deletedAt !== undefined) put("deleted_at", d.time(set.deletedAt));
      if (parts.length === 0) return;
      await db.run(`UPDATE contexts SET ${parts.join(", ")} WHERE uuid = ?`, [...params, d.uuid(id)]);
      forgetGroupState(db);
    },
    async list(query: ListQuery): Promise<RowPage<ContextRow>> {
      const page = await listRows<RawContextRow>(
        db,
        {
          select: `${columns("c.")}, ${d.epochMs("c.lease_expires_at")} AS lease`,
          from: "contexts c",
          where: `c.workspace_id = ${WORKSPACE} AND c.deleted_at IS NULL`,
          params: [workspace],
          id: "c.uuid",
          columns: {
            name: { sql: "c.name", kind: "text", nullable: true, selective: true },
            type: { sql: "c.type", kind: "text", nullable: true },
            status: { sql: "c.status", kind: "text" },
            freshness: { sql: "c.freshness", kind: "text" },
            resolvedAt: { sql: "c.resolved_at", kind: "time", nullable: true },
            createdAt: { sql: "c.created_at", kind: "time" },
            updatedAt: { sql: "c.updated_at", kind: "time" },
          },
          json: { metadata: "c.metadata" },
        },
        LIST_SPECS.contexts,
        query,
      );
      return { ...page, rows: page.rows.map(parse) };
    },
    /** Record and evaluation counts of one context, for `include=summary`. */
    async counts(id: string): Promise<ContextCounts> {
      const context = "(SELECT id FROM contexts WHERE uuid = ?)";
      const byModel = await db.all<{ name: string; n: number }>(
        `SELECT m.name AS name, COUNT(*) AS n FROM records r JOIN models m ON m.id = r.model_id
         WHERE r.context_id = ${context} AND r.deleted_at IS NULL GROUP BY m.name ORDER BY m.name`,
        [d.uuid(id)],
      );
      const ev = await db.get<{ total: number; passed: number }>(
        `SELECT COUNT(*) AS total, COALESCE(SUM(CASE WHEN e.outcome THEN 1 ELSE 0 END), 0) AS passed FROM evaluations e
         JOIN rules r ON r.id = e.rule_id WHERE e.context_id = ${context} AND r.deleted_at IS NULL`,
        [d.uuid(id)],
      );
      const total = Number(ev?.total ?? 0);
      const passed = Number(ev?.passed ?? 0);
      return {
        recordsByModel: Object.fromEntries(byModel.map((r) => [r.name, Number(r.n)])),
        evaluations: { total, passed, failed: total - passed },
      };
    },
  };
}

/** The context repository type. */
export type ContextRepo = ReturnType<typeof createContextRepo>;
