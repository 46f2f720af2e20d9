import type { Sql } from "./sql.js";
import { WORKSPACE } from "./workspace-sql.js";

/** How long a key is remembered (the interface's 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** How a keyed call's result is stored and rebuilt. */
export interface ReplayCodec<T> {
  store(result: T): unknown;
  /** Rebuilds the result, reading through `db` (the caller's transaction, or the store). */
  load(stored: unknown, db: Sql): T | Promise<T>;
}

/** The replay repository type. */
export type ReplayRepo = ReturnType<typeof createReplayRepo>;

/**
 * Exactly-once engine calls: the result of a keyed call is stored in the same
 * transaction as its writes (table `idempotency_keys`, shared with the HTTP layer, so a
 * key means one thing in a workspace whichever door it came through).
 */
export function createReplayRepo(workspace: string) {
  const codecs = new Map<string, ReplayCodec<unknown>>();
  return {
    /** Declares how results of `what` are stored, so `expand` can rebuild them for any caller. */
    register<T>(what: string, codec: ReplayCodec<T>): void {
      codecs.set(what, codec as ReplayCodec<unknown>);
    },
    /**
     * The JSON a keyed call answered, from a stored row (the HTTP layer replays rows the
     * engine stored): rebuilt by the codec registered for the row's call, else as stored.
     */
    async expand(db: Sql, answerForm: string, body: string): Promise<string> {
      const codec = codecs.get(answerForm);
      return codec ? JSON.stringify(await codec.load(JSON.parse(body), db)) : body;
    },
    /**
     * Runs `fn` once per key, inside `tx` (the transaction of its writes): a live key
     * returns the stored result instead. The key is locked first (on PostgreSQL a
     * transaction advisory lock; SQLite's write transaction holds the file), so the same
     * key sent twice at once runs once and the second replays. A codec registered for
     * `what` stores a smaller form of the result (ids in place of rows the database
     * already holds) and rebuilds the result from it on replay. `early` is called once the
     * lock and the lookup are sent, to send the call's own first reads behind them.
     */
    async once<T>(tx: Sql, key: string, what: string, fn: () => Promise<T>, early?: () => void): Promise<T> {
      const codec = codecs.get(what) as ReplayCodec<T> | undefined;
      // The read is sent behind the lock without waiting for it (PostgreSQL pipelines them on
      // the transaction's connection, which runs them in order): it still reads after the lock.
      const locked = tx.dialect.lockKey ? tx.run(tx.dialect.lockKey, [`${workspace}\n${key}`]) : undefined;
      const now = Date.now();
      const d = tx.dialect;
      const lookup = tx.get<{ body: string }>(`SELECT body FROM idempotency_keys WHERE workspace_id = ${WORKSPACE} AND key = ? AND state = 'done' AND expires_at > ?`, [
        workspace,
        key,
        d.time(now),
      ]);
      // The call's first reads, sent behind the lock too (they lock nothing the key does not
      // already guard; a replay simply ignores them).
      early?.();
      const [, hit] = await Promise.all([locked, lookup]);
      if (hit !== undefined) return codec ? codec.load(JSON.parse(hit.body), tx) : (JSON.parse(hit.body) as T);
      const result = await fn();
      const body = JSON.stringify(codec ? codec.store(result) : result);
      await tx.run(
        `INSERT INTO idempotency_keys (workspace_id, key, answer_form, state, status, headers, body, created_at, expires_at)
         VALUES (${WORKSPACE}, ?, ?, 'done', 200, '{}', ?, ?, ?)
         ON CONFLICT (workspace_id, key) DO UPDATE SET answer_form = excluded.answer_form, state = 'done', status = 200, headers = '{}',
           body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at`,
        // answer_form names the codec whose compact form `body` is; NULL: the answer as sent.
        [workspace, key, codec ? what : null, body, d.time(now), d.time(now + IDEMPOTENCY_TTL_MS)],
      );
      return result;
    },
  };
}
