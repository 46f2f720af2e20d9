import type postgres from "postgres";
import { errors } from "../../../contract/errors.js";
import { asDatabaseUnavailable, isConnectionLost, isReadOnlyServer } from "../db-errors.js";
import { publishEngineEvent } from "../../events.js";
import { createAvailability, type Availability } from "./pg-availability.js";
import { createPermits } from "./pg-permits.js";
import { DEFAULT_POOL_SIZE, DEFAULT_POOL_TIMEOUT_S } from "./pg-url.js";
import { connectPg } from "./pg-connect.js";
import { resolvePgTarget, type PgTarget } from "./pg-target.js";
import { PG_TYPES } from "./pg-types.js";
import type { PoolStats } from "../store.js";

/** Options of a node's pool. */
export interface PgPoolOptions {
  /** Connections (default: the URL's pool_size, else DDS_DB_POOL, else 10). */
  size?: number;
  /** Read for `DDS_DB_POOL` and libpq's `PG*` variables (pg-target.ts). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The session settings every connection of ddsctl's starts with (a setting in the URL wins):
 * a session idle inside a transaction for 10 s is ended by the server, so a node frozen
 * mid-transaction (a long GC pause, SIGSTOP, a suspended VM) holds its row locks that long
 * at most; its late COMMIT then fails. `application_name` shows ddsctl in pg_stat_activity.
 */
export const SESSION_SETTINGS: Record<string, string> = { idle_in_transaction_session_timeout: "10000" };
/** What the pool's connections need besides: times read as text in UTC (pg-types.ts turns them into the API's ISO form). */
const POOL_SETTINGS: Record<string, string> = { TimeZone: "UTC" };

/** A statement held longer than this makes the pool check that the database still answers. */
const STALL_MS = 5000;

/** Creates one driver client (a pool of `max` connections) with ddsctl's settings. */
function createClient(target: PgTarget, max: number): postgres.Sql {
  return connectPg(target, {
    max,
    defaults: SESSION_SETTINGS,
    fixed: POOL_SETTINGS,
    // Undefined parameters bind as NULL, as they do on SQLite.
    driver: { idle_timeout: 60, transform: { undefined: null }, types: PG_TYPES },
  });
}

/**
 * A node's connections to PostgreSQL, and what it knows of the database's health:
 * - `use` runs one top-level operation (a statement, or a transaction) on a slot of the
 *   pool: refused at once (503) while the database is known down, after `pool_timeout`
 *   when every slot stays busy; a connection lost meanwhile becomes a 503 too, and makes
 *   the pool probe the database.
 * - A probe that fails marks the database down and replaces the driver's client: every
 *   connection is dropped, so none hangs on a cut network or stays on a server that was
 *   demoted; new ones are made once the database is back (and, with several hosts, on the
 *   one that takes writes).
 * - A write refused by a read-only server is retried on a new client at once: the
 *   connections were made before a failover.
 */
export function createPgPool(url: string, location: string, options: PgPoolOptions = {}) {
  const target = resolvePgTarget(url, options.env);
  const size = options.size ?? target.poolSize ?? (Number(options.env?.DDS_DB_POOL) || DEFAULT_POOL_SIZE);
  const waitMs = target.poolTimeoutMs ?? DEFAULT_POOL_TIMEOUT_S * 1000;
  let client = createClient(target, size);
  const permits = createPermits(size);
  const resets = new Set<() => void>();
  const observers = new Set<(seconds: number, failed: boolean) => void>();

  /** Drops every connection of the current client (their statements fail) and starts a new one. */
  const reset = (from: postgres.Sql = client) => {
    if (from !== client) return;
    client = createClient(target, size);
    void from.end({ timeout: 0 }).catch(() => undefined);
    for (const fn of resets) fn();
  };
  const availability: Availability = createAvailability(target, {
    // One line each in serve's log (engine events), however many requests were refused.
    onDown(reason) {
      reset();
      publishEngineEvent({ event: "db_unreachable", location, error: reason });
    },
    onUp(downMs) {
      publishEngineEvent({ event: "db_reconnected", location, downMs });
    },
  });
  // A statement stuck on a connection (a cut network answers nothing) is noticed here.
  const sweep = setInterval(() => {
    if (permits.oldest() > STALL_MS) availability.suspect();
  }, 1000);
  sweep.unref();

  /** The 503 for a failure of the database (and a probe when it may be gone), or undefined for any other error. */
  const fail = (err: unknown, from?: postgres.Sql) => {
    if (isReadOnlyServer(err)) reset(from);
    if (isConnectionLost(err)) availability.suspect();
    return availability.down ? downError() : asDatabaseUnavailable(err, `the database ${location}`);
  };
  const downError = () => {
    const seconds = Math.round((Date.now() - availability.since) / 1000);
    return errors.databaseUnavailable(`the database ${location} is unreachable (${availability.reason}) for ${seconds} s; retry shortly`, 2);
  };

  return {
    size,
    get client() {
      return client;
    },
    availability,
    /** What holds the pool's slots and what waits for one (metrics). */
    stats(): PoolStats {
      return permits.stats();
    },
    fail,
    /** Runs one top-level operation on the current client (see above). */
    async use<T>(fn: (client: postgres.Sql) => Promise<T>): Promise<T> {
      if (availability.down) throw downError();
      const permit = await permits.acquire(waitMs);
      if (!permit) {
        availability.suspect();
        throw errors.databaseUnavailable(`all ${size} connections of this node to ${location} stayed busy for ${waitMs / 1000} s; retry shortly`, 1);
      }
      const started = observers.size > 0 ? performance.now() : 0;
      let failed = true;
      try {
        for (let attempt = 1; ; attempt++) {
          const from = client;
          try {
            const result = await fn(from);
            failed = false;
            return result;
          } catch (err) {
            // Nothing commits on a read-only server: the whole operation runs again on new connections.
            if (isReadOnlyServer(err) && attempt < 3) {
              reset(from);
              continue;
            }
            throw fail(err, from) ?? err;
          }
        }
      } finally {
        permit.release();
        if (started > 0) for (const observe of observers) observe((performance.now() - started) / 1000, failed);
      }
    },
    /** Calls `fn` after each operation run by `use` (the metrics' query time); returns the unsubscribe function. */
    observe(fn: (seconds: number, failed: boolean) => void): () => void {
      observers.add(fn);
      return () => void observers.delete(fn);
    },
    /** Where the pool connects (the notification listener connects there too). */
    target,
    /** A client of one connection with the pool's settings, outside its slots (the node's key marks). */
    single: () => createClient(target, 1),
    /** Calls `fn` after each reset: whoever holds a connection of the old client lets it go. */
    onReset(fn: () => void): void {
      resets.add(fn);
    },
    async end(): Promise<void> {
      clearInterval(sweep);
      availability.close();
      await client.end({ timeout: 5 });
    },
  };
}

/** A node's pool. */
export type PgPool = ReturnType<typeof createPgPool>;
