import type { Sql } from "../sql.js";

/** Contexts per statement (far below SQLite's parameter limit). */
const CHUNK = 500;

/**
 * Evidence arrived (SQLite's way of Store.markStale): bumps each context's version,
 * resolved → stale, computing stays computing (its pass will notice the version), and wakes
 * the workers. Returns the contexts that turned stale. Two set-based statements per call,
 * not two per context: a batch of interleaved lines touches up to a hundred contexts. The
 * transaction holds the one database file, so no row needs locking first.
 */
export async function sqliteMarkStale(db: Sql, contextKeys: Iterable<number>): Promise<{ contextId: string; workspace: string }[]> {
  const keys = [...new Set(contextKeys)].sort((a, b) => a - b);
  const turned: { contextId: string; workspace: string }[] = [];
  for (let i = 0; i < keys.length; i += CHUNK) {
    const chunk = keys.slice(i, i + CHUNK);
    const live = `id IN (${chunk.map(() => "?").join(",")}) AND deleted_at IS NULL AND status != 'archived'`;
    turned.push(
      ...(await db.all<{ contextId: string; workspace: string }>(
        `SELECT uuid AS "contextId", (SELECT name FROM workspaces w WHERE w.id = contexts.workspace_id) AS workspace FROM contexts
         WHERE ${live} AND freshness = 'resolved' ORDER BY uuid`,
        chunk,
      )),
    );
    await db.run(
      `UPDATE contexts SET evidence_version = evidence_version + 1,
         freshness = CASE WHEN freshness = 'computing' THEN 'computing' ELSE 'stale' END
       WHERE ${live}`,
      chunk,
    );
  }
  db.signal("work");
  return turned;
}
