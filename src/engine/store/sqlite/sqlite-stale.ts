import type { Sql } from "../sql.js";
import { pushAll } from "../../../portable/arrays.js";

/** The contexts the open write group has marked stale. */
function groupBumped(memo: Map<string, unknown>): Set<number> {
  let bumped = memo.get("bumped") as Set<number> | undefined;
  if (!bumped) memo.set("bumped", (bumped = new Set()));
  return bumped;
}

/** Contexts per statement (far below SQLite's parameter limit). */
const CHUNK = 500;

/**
 * Evidence arrived (SQLite's way of Store.markStale): bumps each context's version,
 * resolved → stale, computing stays computing (its pass will notice the version), and wakes
 * the workers. Returns the contexts that turned stale. Two set-based statements per call,
 * not two per context: a batch of interleaved lines touches up to a hundred contexts. The
 * transaction holds the one database file, so no row needs locking first.
 */
export async function sqliteMarkStale(db: Sql, contextKeys: Iterable<number>, recordKeys: Iterable<number> = []): Promise<{ contextId: string; workspace: string }[]> {
  // In a write group a context bumped by an earlier call is still stale (claiming it or
  // changing its status forgets the marks): it has no pass in flight, and nothing outside
  // the group's transaction sees the versions in between, so one bump per group does.
  const bumped = db.groupMemo && groupBumped(db.groupMemo);
  const keys = [...new Set(contextKeys)].filter((k) => !bumped?.has(k)).sort((a, b) => a - b);
  for (const k of keys) bumped?.add(k);
  const turned: { contextId: string; workspace: string }[] = [];
  for (let i = 0; i < keys.length; i += CHUNK) {
    const chunk = keys.slice(i, i + CHUNK);
    const live = `id IN (${chunk.map(() => "?").join(",")}) AND deleted_at IS NULL AND status != 'archived'`;
    pushAll(
      turned,
      await db.all<{ contextId: string; workspace: string }>(
        `SELECT uuid AS "contextId", (SELECT name FROM workspaces w WHERE w.id = contexts.workspace_id) AS workspace FROM contexts
         WHERE ${live} AND freshness = 'resolved' ORDER BY uuid`,
        chunk,
      ),
    );
    await db.run(
      `UPDATE contexts SET evidence_version = evidence_version + 1,
         freshness = CASE WHEN freshness = 'computing' THEN 'computing' ELSE 'stale' END,
         stale_since = CASE WHEN freshness = 'resolved' THEN ? ELSE stale_since END
       WHERE ${live}`,
      [db.dialect.time(Date.now()), ...chunk],
    );
  }
  await stampRecords(db, recordKeys);
  db.signal("work");
  return turned;
}

/**
 * Gives each record its context's evidence version (after the bump): the next pass of the
 * context resolves it again (its version is above the one the last pass covered).
 */
export async function stampRecords(db: Sql, recordKeys: Iterable<number>): Promise<void> {
  const keys = [...new Set(recordKeys)];
  for (let i = 0; i < keys.length; i += CHUNK) {
    await db.run(
      `UPDATE records SET changed_version = (SELECT evidence_version FROM contexts c WHERE c.id = records.context_id) WHERE ${db.dialect.inKeys("id")}`,
      [db.dialect.keyList(keys.slice(i, i + CHUNK))],
    );
  }
}
