import type { Sql } from "./sql.js";

/** A workspace as `ddsctl workspaces list` shows it: what it holds, never its data. */
export interface WorkspaceRow {
  name: string;
  createdAt: string;
  /** Unrevoked API tokens acting in it. */
  tokens: number;
  /** Live (not deleted) models and contexts. */
  models: number;
  contexts: number;
}

type RawRow = Omit<WorkspaceRow, "tokens" | "models" | "contexts"> & { tokens: number | string; models: number | string; contexts: number | string };

/**
 * The workspaces of a database (table `workspaces`), oldest first, each with its counts.
 * A workspace is made by the first token or command that names it; nothing else lists them.
 */
export function createWorkspaceRepo(db: Sql) {
  return {
    async list(): Promise<WorkspaceRow[]> {
      const rows = await db.all<RawRow>(
        `SELECT w.name, w.created_at AS "createdAt",
           (SELECT COUNT(*) FROM tokens t WHERE t.workspace_id = w.id AND t.revoked_at IS NULL) AS tokens,
           (SELECT COUNT(*) FROM models m WHERE m.workspace_id = w.id AND m.deleted_at IS NULL) AS models,
           (SELECT COUNT(*) FROM contexts c WHERE c.workspace_id = w.id AND c.deleted_at IS NULL) AS contexts
         FROM workspaces w ORDER BY w.created_at, w.name`,
      );
      // PostgreSQL's COUNT is a bigint, read as text.
      return rows.map((r) => ({ ...r, tokens: Number(r.tokens), models: Number(r.models), contexts: Number(r.contexts) }));
    },
  };
}
