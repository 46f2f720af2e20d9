import type { Store } from "./db.js";
import { statements } from "./statements.js";

/** A finished request's response, as replayed for a repeated key. */
export interface StoredResponse {
  status: number;
  /** The headers a replay repeats (Location, Content-Type). */
  headers: Record<string, string>;
  body: string | null;
}

/** What `begin` found for a key. */
export type IdempotencyBegin =
  | { kind: "claimed" }
  | { kind: "running" }
  | { kind: "replay"; response: StoredResponse; requestHash: string };

/** Timing of idempotency keys. */
export interface IdempotencyTiming {
  /** Milliseconds since the epoch (injectable for tests). */
  now: number;
  /** How long a key is kept (24 h). */
  ttlMs: number;
  /**
   * After this long a `running` row whose process cannot be told alive or dead (no owner
   * recorded) is taken as abandoned.
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
  requestHash: string;
  status: number | null;
  headers: string | null;
  body: string | null;
  createdAt: number;
  expiresAt: number;
}

/**
 * Persistence of Idempotency-Key outcomes (table `idempotency_keys`), durable across
 * restarts. Claiming a key is one IMMEDIATE transaction, so two requests with the same
 * key (even in two server processes) cannot both run.
 */
export function createIdempotencyRepo(store: Store) {
  const q = statements(store.raw);
  return {
    /**
     * Claims the key for a new run (marked with `owner`), or reports a finished (replay) or
     * still running one. `owner` also tells whether another mark's process still lives.
     */
    begin(workspace: string, key: string, requestHash: string, t: IdempotencyTiming, owner?: MarkOwner): IdempotencyBegin {
      return store.tx(() => {
        const row = q(
          "SELECT state, owner, request_hash AS requestHash, status, headers, body, created_at AS createdAt, expires_at AS expiresAt FROM idempotency_keys WHERE workspace = ? AND key = ?",
        ).get(workspace, key) as Row | undefined;
        // An expired row is ignored: after the retention the key is new.
        if (row && row.expiresAt > t.now) {
          if (row.state === "done") {
            return {
              kind: "replay",
              requestHash: row.requestHash,
              response: { status: row.status ?? 200, headers: row.headers ? (JSON.parse(row.headers) as Record<string, string>) : {}, body: row.body },
            };
          }
          if (markStands(owner?.isAlive(row.owner), row.createdAt, t)) return { kind: "running" };
        }
        q(
          `INSERT INTO idempotency_keys (workspace, key, request_hash, state, owner, created_at, expires_at) VALUES (?, ?, ?, 'running', ?, ?, ?)
           ON CONFLICT(workspace, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'running', owner = excluded.owner, status = NULL,
             headers = NULL, body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at`,
        ).run(workspace, key, requestHash, owner?.id || null, t.now, t.now + t.ttlMs);
        return { kind: "claimed" };
      });
    },
    /**
     * Stores the response of a claimed key so repeats replay it. `sealBody` (an answer that
     * carries a secret) encrypts the body inside the write's transaction.
     */
    finish(workspace: string, key: string, response: StoredResponse, sealBody?: (body: string) => string): void {
      const write = () =>
        q("UPDATE idempotency_keys SET state = 'done', owner = NULL, status = ?, headers = ?, body = ? WHERE workspace = ? AND key = ?").run(
          response.status,
          JSON.stringify(response.headers),
          response.body !== null && sealBody ? sealBody(response.body) : response.body,
          workspace,
          key,
        );
      if (sealBody) store.tx(write);
      else write();
    },
    /** Forgets a claimed key (its run failed with a 5xx), so a retry runs again. */
    release(workspace: string, key: string): void {
      q("DELETE FROM idempotency_keys WHERE workspace = ? AND key = ?").run(workspace, key);
    },
    /** Deletes expired keys; returns how many. */
    purge(now: number): number {
      return q("DELETE FROM idempotency_keys WHERE expires_at <= ?").run(now).changes;
    },
  };
}

/** The idempotency repository type. */
export type IdempotencyRepo = ReturnType<typeof createIdempotencyRepo>;
