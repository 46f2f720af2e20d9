import { eq } from "drizzle-orm";
import type { ListQuery } from "../../contract/list-query.js";
import { LIST_SPECS } from "../../contract/list-query.js";
import type { Store } from "./db.js";
import { listRows, type RowPage } from "./list-sql.js";
import { contexts } from "./schema.js";
import { statements } from "./statements.js";

const columns = (p: string) => `${p}id, ${p}workspace, ${p}name, ${p}type, ${p}metadata, ${p}status, ${p}freshness,
  ${p}evidence_version AS evidenceVersion, ${p}resolved_version AS resolvedVersion, ${p}claimed_by AS claimedBy,
  ${p}lease_expires_at AS leaseExpiresAt, ${p}created_at AS createdAt, ${p}updated_at AS updatedAt,
  ${p}resolved_at AS resolvedAt, ${p}deleted_at AS deletedAt`;
const CONTEXT_COLUMNS = columns("");

type RawContextRow = Omit<ContextRow, "metadata"> & { metadata: string };
const parseRow = (row: RawContextRow): ContextRow => ({ ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown> });

/** A context row as the engine uses it. */
export type ContextRow = typeof contexts.$inferSelect;

/** Counts behind `include=summary`. */
export interface ContextCounts {
  recordsByModel: Record<string, number>;
  evaluations: { total: number; passed: number; failed: number };
}

/** Context persistence, scoped to one workspace. */
export function createContextRepo(store: Store, workspace: string) {
  const { db, raw } = store;
  const q = statements(raw);
  return {
    insert(row: ContextRow): void {
      db.insert(contexts).values(row).run();
    },
    get(id: string): ContextRow | undefined {
      // Hot path (every ingest): a cached prepared statement instead of a built query.
      const row = q(`SELECT ${CONTEXT_COLUMNS} FROM contexts WHERE workspace = ? AND id = ? AND deleted_at IS NULL`).get(workspace, id.toLowerCase()) as
        | RawContextRow
        | undefined;
      return row ? parseRow(row) : undefined;
    },
    update(id: string, set: Partial<Omit<ContextRow, "id" | "workspace" | "createdAt">>): void {
      db.update(contexts).set(set).where(eq(contexts.id, id)).run();
    },
    list(query: ListQuery): RowPage<ContextRow> {
      const page = listRows<RawContextRow>(
        raw,
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
    counts(id: string): ContextCounts {
      const byModel = raw
        .prepare(
          `SELECT m.name AS name, COUNT(*) AS n FROM records r JOIN models m ON m.id = r.model_id
           WHERE r.context_id = ? AND r.deleted_at IS NULL GROUP BY m.name ORDER BY m.name`,
        )
        .all(id) as { name: string; n: number }[];
      const ev = raw
        .prepare(
          `SELECT COUNT(*) AS total, COALESCE(SUM(e.outcome), 0) AS passed FROM evaluations e
           JOIN rules r ON r.id = e.rule_id WHERE e.context_id = ? AND r.deleted_at IS NULL`,
        )
        .get(id) as { total: number; passed: number };
      return {
        recordsByModel: Object.fromEntries(byModel.map((r) => [r.name, r.n])),
        evaluations: { total: ev.total, passed: ev.passed, failed: ev.total - ev.passed },
      };
    },
  };
}

/** The context repository type. */
export type ContextRepo = ReturnType<typeof createContextRepo>;
