import type postgres from "postgres";
import type { KeyLock } from "../store.js";

/**
 * This node's in-progress marks on Idempotency-Keys: session advisory locks taken on one
 * reserved connection, so every mark dies with the node (its session ends, PostgreSQL
 * releases them) and never outlives it by a timeout. A lock is re-entrant within a
 * session, so the node also remembers which keys it holds: a duplicate arriving at this
 * same node is refused as one arriving at another would be.
 */
export function createKeyLocks(client: postgres.Sql) {
  let conn: Promise<postgres.ReservedSql> | undefined;
  const held = new Set<string>();
  const connection = () =>
    (conn ??= client.reserve().catch((err: unknown) => {
      conn = undefined;
      throw err;
    }));
  /** Drops a connection that failed: its session (and every mark on it) is gone. */
  const drop = (failed: Promise<postgres.ReservedSql>) => {
    if (conn !== failed) return;
    conn = undefined;
    held.clear();
    void failed.then((c) => c.release()).catch(() => undefined);
  };
  return {
    /** Takes the mark of a key, or undefined when another session (or request here) holds it. */
    async lock(workspace: string, key: string): Promise<KeyLock | undefined> {
      const name = `${workspace}\n${key}`;
      if (held.has(name)) return undefined;
      held.add(name);
      const current = connection();
      let got = false;
      try {
        const [row] = await (await current).unsafe("SELECT pg_try_advisory_lock(hashtextextended($1, 1)) AS got", [name]);
        got = Boolean(row.got);
      } catch (err) {
        held.delete(name);
        drop(current);
        throw err;
      } finally {
        if (!got) held.delete(name);
      }
      if (!got) return undefined;
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          if (!held.delete(name) || conn !== current) return;
          try {
            await (await current).unsafe("SELECT pg_advisory_unlock(hashtextextended($1, 1))", [name]);
          } catch {
            drop(current);
          }
        },
      };
    },
    async close() {
      const c = conn;
      conn = undefined;
      held.clear();
      if (c) (await c.catch(() => undefined))?.release();
    },
  };
}
