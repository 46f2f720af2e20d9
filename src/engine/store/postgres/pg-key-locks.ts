import type postgres from "postgres";
import type { Row } from "../sql.js";
import type { KeyLock } from "../store.js";
import type { PgPool } from "./pg-pool.js";
import { query } from "./pg-sql.js";

/**
 * This node's in-progress marks on Idempotency-Keys: session advisory locks taken on one
 * reserved connection, so every mark dies with the node (its session ends, PostgreSQL
 * releases them) and never outlives it by a timeout. A lock is re-entrant within a
 * session, so the node also remembers which keys it holds: a duplicate arriving at this
 * same node is refused as one arriving at another would be.
 *
 * When that connection is lost (the database restarted, its backend was terminated, the
 * pool was replaced) every mark is gone with its session: the node forgets them and
 * reserves a new connection on the next request. A request that held a mark simply has
 * nothing left to release. A node that is paused (SIGSTOP, a frozen VM) keeps its session,
 * and so its marks, until it resumes or its connection dies: retries of those keys get 409
 * meanwhile, never a second run.
 */
export function createKeyLocks(pool: PgPool) {
  // A connection of its own, outside the pool's slots: a request holds its mark while it
  // waits for a slot, so a mark taken from the slots could leave none for the request.
  let client = pool.single();
  let conn: Promise<postgres.ReservedSql> | undefined;
  /** The marks this node holds, each by the lock that took it (a later session's lock of the same key is another). */
  const held = new Map<string, object>();
  const connection = () => {
    if (pool.availability.down) return Promise.reject(Object.assign(new Error("the database is unreachable"), { code: "CONNECTION_CLOSED" }));
    return (conn ??= client.reserve().catch((err: unknown) => {
      conn = undefined;
      throw err;
    }));
  };
  /**
   * Starts over on a new session: the old one is ended (its client with it), so every mark
   * it held is released by PostgreSQL even if the failure that brought this here left it
   * alive; the node forgets them all.
   */
  const renew = () => {
    const old = client;
    client = pool.single();
    conn = undefined;
    held.clear();
    void old.end({ timeout: 0 }).catch(() => undefined);
  };
  /** A statement on `failed` failed: unless that connection was already replaced, start over. */
  const drop = (failed: Promise<postgres.ReservedSql> | undefined) => {
    if (failed && conn === failed) renew();
  };
  // The database was found unreachable: this connection may hang on a cut network too.
  pool.onReset(renew);
  return {
    /** Takes the mark of a key, or undefined when another session (or request here) holds it. */
    async lock(workspace: string, key: string): Promise<KeyLock | undefined> {
      return (await this.lockAndRead(workspace, key)).lock;
    },
    /**
     * Takes the mark of a key (see lock) and then runs `read` on the same connection, sent
     * together: one round trip, and the read runs after the mark is taken (a run that
     * finished just before is visible to it).
     */
    async lockAndRead(workspace: string, key: string, read?: { text: string; params: readonly unknown[] }): Promise<{ lock: KeyLock | undefined; rows: Row[] }> {
      const name = `${workspace}\n${key}`;
      const mine = {};
      const ours = !held.has(name);
      if (ours) held.set(name, mine);
      const forget = () => {
        if (held.get(name) === mine) held.delete(name);
      };
      let current: Promise<postgres.ReservedSql> | undefined;
      let got = false;
      let rows: Row[] = [];
      try {
        current = connection();
        const c = await current;
        const attempt = ours ? c.unsafe("SELECT pg_try_advisory_lock(hashtextextended($1, 1)) AS got", [name]) : undefined;
        const reading = read ? query<Row>(c, read.text, read.params) : undefined;
        const [tried, found] = await Promise.all([attempt, reading]);
        got = Boolean(tried?.[0]?.got);
        rows = found ?? [];
      } catch (err) {
        forget();
        drop(current);
        throw pool.fail(err) ?? err;
      } finally {
        if (!got) forget();
      }
      if (!got) return { lock: undefined, rows };
      let released = false;
      const lock: KeyLock = {
        async release() {
          if (released) return;
          released = true;
          // Gone with a session that ended (renew): nothing of it is left to unlock.
          if (held.get(name) !== mine || conn !== current) return;
          held.delete(name);
          try {
            await (await current).unsafe("SELECT pg_advisory_unlock(hashtextextended($1, 1))", [name]);
          } catch (err) {
            drop(current);
            pool.fail(err);
          }
        },
      };
      return { lock, rows };
    },
    async close() {
      const reserved = conn;
      conn = undefined;
      held.clear();
      // A reserved connection is waited for by end() (its timeout, a second of every
      // shutdown): hand it back first, so the client ends at once.
      (await reserved?.catch(() => undefined))?.release();
      await client.end({ timeout: 1 });
    },
  };
}
