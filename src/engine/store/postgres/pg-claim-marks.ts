import type postgres from "postgres";
import type { ClaimSession } from "../claim-session.js";

/**
 * The namespace of claim marks among advisory locks ("DDS1"): a mark is the two-key lock
 * (CLAIM_MARKS, hashtext(worker)), which PostgreSQL lists in pg_locks with objsubid 2, so it
 * never meets the one-key (bigint) locks of Idempotency-Keys.
 */
export const CLAIM_MARKS = 0x44445331;

/** The claim marks held on this database, as rows of pg_locks `l`. */
const MARKS_HELD = `FROM pg_locks l WHERE l.locktype = 'advisory' AND l.classid = ${CLAIM_MARKS} AND l.objsubid = 2 AND l.granted
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

/**
 * True when no session of this database holds the mark of the worker named in `column`:
 * its claims may be taken over at once. The marks are read once per statement (a hashed
 * subplan over pg_locks, built only when a row reaches it: a computing context whose lease
 * has not run out). A worker whose name hashes like a live one's (32 bits) just waits for
 * its lease, as before.
 */
export const claimHolderGone = (column: string) => `(hashtext(${column})::bigint & 4294967295) NOT IN (SELECT l.objid::bigint ${MARKS_HELD})`;

/** How many workers hold a mark on this database: one row, `n` (see Dialect.liveWorkers). */
export const LIVE_WORKERS = `SELECT count(*)::int AS n ${MARKS_HELD}`;

const TAKE = `SELECT pg_try_advisory_lock(${CLAIM_MARKS}, hashtext($1)) AS got`;
const GIVE = `SELECT pg_advisory_unlock(${CLAIM_MARKS}, hashtext($1))`;

/**
 * The claim marks of this node's workers, held by one long-lived session (the node's
 * listening connection, see pg-notifications.ts): PostgreSQL releases them when that
 * session ends, which it does when the process dies (its socket closes; a lost host is
 * found by the session's TCP keepalives). Whenever the session is replaced, every worker
 * that asked is marked again on the new one.
 */
export function createClaimMarks() {
  /** Workers that asked for a mark and have not let go. */
  const wanted = new Set<string>();
  /** The marks taken (or being taken) on the current session, by worker: whether it got it. */
  let taken = new Map<string, Promise<boolean>>();
  let session: postgres.Sql | undefined;

  const take = (client: postgres.Sql, worker: string): Promise<boolean> => {
    const got = client.unsafe(TAKE, [worker]).then(
      (rows) => Boolean(rows[0]?.got),
      // The session failed meanwhile: the next one marks it again.
      () => false,
    );
    taken.set(worker, got);
    return got;
  };

  const marks: ClaimSession & {
    /** The session now holds (or again holds) the node's marks: every wanted one is taken on it. */
    attach(client: postgres.Sql): Promise<void>;
    /** The session ended or is being replaced: its marks are gone with it. */
    detach(): void;
  } = {
    async hold(worker) {
      wanted.add(worker);
      if (!session || taken.has(worker)) {
        await taken.get(worker);
        return;
      }
      await take(session, worker);
    },
    async letGo(worker) {
      wanted.delete(worker);
      const had = taken.get(worker);
      taken.delete(worker);
      if (session && had && (await had)) await session.unsafe(GIVE, [worker]).catch(() => undefined);
    },
    async attach(client) {
      session = client;
      taken = new Map();
      await Promise.all([...wanted].map((w) => take(client, w)));
    },
    detach() {
      session = undefined;
      taken = new Map();
    },
  };
  return marks;
}

/** The claim marks of a node. */
export type ClaimMarks = ReturnType<typeof createClaimMarks>;
