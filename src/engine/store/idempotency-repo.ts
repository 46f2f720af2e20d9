import type { Dialect, Sql } from "./sql.js";
import { WORKSPACE } from "./workspace-sql.js";
import type { KeyLock, Store } from "./store.js";

/** How long a key is remembered (the interface's 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** A finished request's response, as replayed for a repeated key. */
export interface StoredResponse {
  status: number;
  /** The headers a replay repeats (Location, Content-Type). */
  headers: Record<string, string>;
  body: string | null;
}

/** A key claimed for one run: store its response, or give it back. */
export interface ClaimedKey {
  /**
   * Stores the response so repeats replay it (and frees the in-progress mark). `sealBody`
   * (an answer that carries a secret) encrypts the body inside the write's transaction.
   */
  finish(response: StoredResponse, sealBody?: (body: string) => string): Promise<void>;
  /** The engine stored the response itself (keyed bulk writes): only free the mark. */
  done(): Promise<void>;
  /** Forgets the key (its run failed with a 5xx), so a retry runs again. */
  release(): Promise<void>;
}

/** What `begin` found for a key. */
export type IdempotencyBegin =
  | { kind: "claimed"; claim: ClaimedKey }
  | { kind: "running" }
  | { kind: "replay"; response: StoredResponse; answerForm: string | null };

/** Timing of idempotency keys. */
export interface IdempotencyTiming {
  /** Milliseconds since the epoch (injectable for tests). */
  now: number;
  /** How long a key is kept (24 h). */
  ttlMs: number;
  /**
   * SQLite: after this long a `running` row whose process cannot be told alive or dead (no
   * owner recorded) is taken as abandoned.
   */
  abandonMs: number;
}

/** Who is claiming a key, and how to tell whether the process behind another mark lives. */
export interface MarkOwner {
  id: string;
  isAlive(owner: string | null): boolean | undefined;
}

/**
 * Whether a `running` mark still stands (pure: the caller asks the lock files). A mark of a
 * live process stands; a mark of a dead one (killed mid-request) never does, so a retry
 * after a crash is processed at once; a mark whose process cannot be told either way
 * stands until `abandonMs` after it was set.
 */
export function markStands(alive: boolean | undefined, createdAt: number, t: Pick<IdempotencyTiming, "now" | "abandonMs">): boolean {
  if (alive !== undefined) return alive;
  return t.now - createdAt < t.abandonMs;
}

interface Row {
  state: "running" | "done";
  owner: string | null;
  answerForm: string | null;
  status: number | null;
  headers: string | null;
  body: string | null;
  createdAt: number;
  expiresAt: number;
}

const select = (d: Dialect) => `SELECT state, owner, answer_form AS "answerForm", status, headers, body, ${d.epochMs("created_at")} AS "createdAt",
  ${d.epochMs("expires_at")} AS "expiresAt" FROM idempotency_keys WHERE workspace_id = ${WORKSPACE} AND key = ?`;
const MARK_RUNNING = `INSERT INTO idempotency_keys (workspace_id, key, state, owner, created_at, expires_at) VALUES (${WORKSPACE}, ?, 'running', ?, ?, ?)
  ON CONFLICT (workspace_id, key) DO UPDATE SET answer_form = NULL, state = 'running', owner = excluded.owner, status = NULL,
    headers = NULL, body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at`;

/** A finished, unexpired row as a replay. */
function replayOf(row: Row | undefined, now: number): IdempotencyBegin | undefined {
  if (!row || row.state !== "done" || Number(row.expiresAt) <= now) return undefined;
  return {
    kind: "replay",
    answerForm: row.answerForm,
    response: { status: Number(row.status ?? 200), headers: row.headers ? (JSON.parse(row.headers) as Record<string, string>) : {}, body: row.body },
  };
}

/**
 * The API's half of Idempotency-Keys (table `idempotency_keys`, owned by this module; the
 * engine's half, {@link createReplayRepo}, is below), durable across restarts. Who may run a key is decided by the store: on SQLite a `running` row written
 * in an IMMEDIATE transaction (one file, one writer; a row older than `abandonMs` is taken
 * as left by a crashed server); on PostgreSQL a session advisory lock held by the node
 * that runs the request, which dies with that node's session, so a duplicate on another
 * node is refused exactly while the first runs.
 */
export function createIdempotencyRepo(store: Store) {
  const db = store.sql;
  const d = db.dialect;
  const SELECT = select(d);
  const claimOf = (workspace: string, key: string, t: IdempotencyTiming, lock?: KeyLock): ClaimedKey => ({
    async finish(response, sealBody) {
      try {
        await db.tx((tx) =>
          tx.run(
            `INSERT INTO idempotency_keys (workspace_id, key, state, status, headers, body, created_at, expires_at) VALUES (${WORKSPACE}, ?, 'done', ?, ?, ?, ?, ?)
             ON CONFLICT (workspace_id, key) DO UPDATE SET answer_form = NULL, state = 'done', owner = NULL, status = excluded.status, headers = excluded.headers, body = excluded.body`,
            [
              workspace,
              key,
              response.status,
              JSON.stringify(response.headers),
              // Sealed inside the transaction: a key rotation (which holds the write lock) is then either before or after it.
              response.body !== null && sealBody ? sealBody(response.body) : response.body,
              d.time(t.now),
              d.time(t.now + t.ttlMs),
            ],
          ),
        );
      } finally {
        await lock?.release();
      }
    },
    // The mark is given back without waiting: the answer need not wait for it, and a later
    // mark of the same key on this node is sent after it on the same connection.
    done: async () => {
      void lock?.release();
    },
    async release() {
      try {
        await db.run(`DELETE FROM idempotency_keys WHERE workspace_id = ${WORKSPACE} AND key = ? AND state = 'running'`, [workspace, key]);
      } finally {
        await lock?.release();
      }
    },
  });
  return {
    /**
     * Claims the key for a new run, or reports a finished (replay) or still running one.
     * On SQLite the `running` row names `owner`, which also tells whether another mark's
     * process still lives.
     */
    async begin(workspace: string, key: string, t: IdempotencyTiming, owner?: MarkOwner): Promise<IdempotencyBegin> {
      if (store.lockKeyAndRead) {
        // Read after taking the mark (on its connection, in the same round trip): a run that
        // finished just before is then visible.
        const { lock, rows } = await store.lockKeyAndRead(workspace, key, { text: SELECT, params: [workspace, key] });
        const row = rows[0] as unknown as Row | undefined;
        const replay = replayOf(row, t.now);
        if (!lock) return replay ?? { kind: "running" };
        if (replay) {
          await lock.release();
          return replay;
        }
        // The lock is the mark: no `running` row to write (or to clean up after a crash).
        return { kind: "claimed", claim: claimOf(workspace, key, t, lock) };
      }
      return db.tx(async (tx: Sql) => {
        const row = await tx.get<Row>(SELECT, [workspace, key]);
        const replay = replayOf(row, t.now);
        if (replay) return replay;
        // An expired row is ignored: after the retention the key is new.
        if (row && Number(row.expiresAt) > t.now && markStands(owner?.isAlive(row.owner), Number(row.createdAt), t)) return { kind: "running" as const };
        await tx.run(MARK_RUNNING, [workspace, key, owner?.id || null, d.time(t.now), d.time(t.now + t.ttlMs)]);
        return { kind: "claimed" as const, claim: claimOf(workspace, key, t) };
      });
    },
    /** Deletes expired keys; returns how many. */
    purge(now: number): Promise<number> {
      return db.run("DELETE FROM idempotency_keys WHERE expires_at <= ?", [d.time(now)]);
    },
  };
}

/** The idempotency repository type. */
export type IdempotencyRepo = ReturnType<typeof createIdempotencyRepo>;


/** How a keyed call's result is stored and rebuilt. */
export interface ReplayCodec<T> {
  store(result: T): unknown;
  /** Rebuilds the result, reading through `db` (the caller's transaction, or the store). */
  load(stored: unknown, db: Sql): T | Promise<T>;
}

/** The replay repository type. */
export type ReplayRepo = ReturnType<typeof createReplayRepo>;

/**
 * The engine's half: exactly-once engine calls. The result of a keyed call is stored in
 * the same transaction as its writes, in the row of its key (so a key means one thing in a
 * workspace whichever door it came through: a keyed bulk through the API is marked by
 * `begin` above, then finished here, and the API only frees its mark).
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
