import type { ListQuery } from "../../contract/list-query.js";
import { LIST_SPECS } from "../../contract/list-query.js";
import { listRows, type RowPage } from "./list-sql.js";
import type { LockOption } from "./model-repo.js";
import { insertRow, setClause } from "./row-codec.js";
import { contexts } from "./schema.js";
import type { Sql } from "./sql.js";

const columns = (p: string) => `${p}id, ${p}workspace, ${p}name, ${p}type, ${p}metadata, ${p}status, ${p}freshness,
  ${p}evidence_version AS "evidenceVersion", ${p}resolved_version AS "resolvedVersion", ${p}claimed_by AS "claimedBy",
  ${p}lease_expires_at AS "leaseExpiresAt", ${p}claim_token AS "claimToken", ${p}created_at AS "createdAt", ${p}updated_at AS "updatedAt",
  ${p}resolved_at AS "resolvedAt", ${p}deleted_at AS "deletedAt"`;
const CONTEXT_COLUMNS = columns("");

type RawContextRow = Omit<ContextRow, "metadata"> & { metadata: string };
const parseRow = (row: RawContextRow): ContextRow => ({ ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown> });

/** A context row as the engine uses it. */
export type ContextRow = typeof contexts.$inferSelect;

/** What a writer of evidence needs to know about a context. */
export interface ContextState {
  id: string;
  status: ContextRow["status"];
}

/** Counts behind `include=summary`. */
export interface ContextCounts {
  recordsByModel: Record<string, number>;
  evaluations: { total: number; passed: number; failed: number };
}

/** Context persistence, scoped to one workspace. */
export function createContextRepo(db: Sql, workspace: string) {
  return {
    async insert(row: ContextRow): Promise<void> {
      const { sql, params } = insertRow(contexts, row);
      await db.run(sql, params);
    },
    /** A live context; `lock` holds its row until the transaction ends (writers of one context take turns). */
    async get(id: string, options: LockOption = {}): Promise<ContextRow | undefined> {
      const row = await db.get<RawContextRow>(
        `SELECT ${CONTEXT_COLUMNS} FROM contexts WHERE workspace = ? AND id = ? AND deleted_at IS NULL${options.lock ? ` ${db.dialect.forUpdate}` : ""}`,
        [workspace, id.toLowerCase()],
      );
      return row ? parseRow(row) : undefined;
    },
    /**
     * The id and status of live contexts (what a writer of evidence needs), in one query;
     * with `lock`, their rows are held in id order (so two writers over the same contexts
     * cannot deadlock) until the transaction ends.
     */
    async getStates(ids: readonly string[], options: LockOption = {}): Promise<ContextState[]> {
      if (ids.length === 0) return [];
      return db.all<ContextState>(
        `SELECT id, status FROM contexts WHERE workspace = ? AND id IN (${ids.map(() => "?").join(", ")}) AND deleted_at IS NULL
         ORDER BY id${options.lock ? ` ${db.dialect.forUpdate}` : ""}`,
        [workspace, ...ids.map((id) => id.toLowerCase())],
      );
    },
    async update(id: string, set: Partial<Omit<ContextRow, "id" | "workspace" | "createdAt">>): Promise<void> {
      const clause = setClause(contexts, set);
      await db.run(`UPDATE contexts SET ${clause.sql} WHERE id = ?`, [...clause.params, id]);
    },
    async list(query: ListQuery): Promise<RowPage<ContextRow>> {
      const page = await listRows<RawContextRow>(
        db,
        {
          select: columns("c."),
          from: "contexts c",
          where: "c.workspace = ? AND c.deleted_at IS NULL",
          params: [workspace],
          id: "c.id",
          columns: {
            name: { sql: "c.name", kind: "text" },
            type: { sql: "c.type", kind: "text" },
            status: { sql: "c.status", kind: "text" },
            freshness: { sql: "c.freshness", kind: "text" },
            resolvedAt: { sql: "c.resolved_at", kind: "text" },
            createdAt: { sql: "c.created_at", kind: "text" },
            updatedAt: { sql: "c.updated_at", kind: "text" },
          },
          json: { metadata: "c.metadata" },
        },
        LIST_SPECS.contexts,
        query,
      );
      return { ...page, rows: page.rows.map(parseRow) };
    },
    /** Record and evaluation counts of one context, for `include=summary`. */
    async counts(id: string): Promise<ContextCounts> {
      const byModel = await db.all<{ name: string; n: number }>(
        `SELECT m.name AS name, COUNT(*) AS n FROM records r JOIN models m ON m.id = r.model_id
         WHERE r.context_id = ? AND r.deleted_at IS NULL GROUP BY m.name ORDER BY m.name`,
        [id],
      );
      const ev = await db.get<{ total: number; passed: number }>(
        `SELECT COUNT(*) AS total, COALESCE(SUM(e.outcome), 0) AS passed FROM evaluations e
         JOIN rules r ON r.id = e.rule_id WHERE e.context_id = ? AND r.deleted_at IS NULL`,
        [id],
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
