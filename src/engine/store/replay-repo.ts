import { createHash } from "node:crypto";
import type { Store } from "./db.js";
import { statements } from "./statements.js";

/** How long a key is remembered (the interface's 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** How a keyed call's result is stored and rebuilt. */
export interface ReplayCodec<T> {
  store(result: T): unknown;
  load(stored: unknown): T;
}

/** The replay repository type. */
export type ReplayRepo = ReturnType<typeof createReplayRepo>;

/**
 * Exactly-once engine calls: the result of a keyed call is stored in the same
 * transaction as its writes (table `idempotency_keys`, shared with the HTTP layer, so a
 * key means one thing in a workspace whichever door it came through).
 */
export function createReplayRepo(store: Store, workspace: string) {
  const q = statements(store.raw);
  const codecs = new Map<string, ReplayCodec<unknown>>();
  const hashOf = (what: string) => createHash("sha256").update(what).digest("hex");
  return {
    /** Declares how results of `what` are stored, so `expand` can rebuild them for any caller. */
    register<T>(what: string, codec: ReplayCodec<T>): void {
      codecs.set(hashOf(what), codec as ReplayCodec<unknown>);
    },
    /**
     * The JSON a keyed call answered, from a stored row (the HTTP layer replays rows the
     * engine stored): rebuilt by the codec registered for the row's call, else as stored.
     */
    expand(requestHash: string, body: string): string {
      const codec = codecs.get(requestHash);
      return codec ? JSON.stringify(codec.load(JSON.parse(body))) : body;
    },
    /**
     * Runs `fn` once per key: a live key returns the stored result instead. A codec
     * registered for `what` stores a smaller form of the result (ids in place of rows the
     * database already holds) and rebuilds the result from it on replay.
     */
    once<T>(key: string, what: string, fn: () => T): T {
      const hash = hashOf(what);
      const codec = codecs.get(hash) as ReplayCodec<T> | undefined;
      return store.tx(() => {
        const now = Date.now();
        const hit = q("SELECT body FROM idempotency_keys WHERE workspace = ? AND key = ? AND state = 'done' AND expires_at > ?").pluck().get(workspace, key, now) as
          | string
          | undefined;
        if (hit !== undefined) return codec ? codec.load(JSON.parse(hit)) : (JSON.parse(hit) as T);
        const result = fn();
        const body = JSON.stringify(codec ? codec.store(result) : result);
        q(
          `INSERT INTO idempotency_keys (workspace, key, request_hash, state, status, headers, body, created_at, expires_at)
           VALUES (?, ?, ?, 'done', 200, '{}', ?, ?, ?)
           ON CONFLICT(workspace, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'done', status = 200, headers = '{}',
             body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at`,
        ).run(workspace, key, hash, body, now, now + IDEMPOTENCY_TTL_MS);
        return result;
      });
    },
  };
}
