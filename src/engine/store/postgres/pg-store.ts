import { DdsError, errors } from "../../../contract/errors.js";
import { asDatabaseUnavailable, isLoginRefused, isPasswordRefused, reasonOf } from "../db-errors.js";
import type { Signal } from "../sql.js";
import type { OnMigrationProgress } from "../migration-progress.js";
import type { Store } from "../store.js";
import { displayPgUrl } from "../location.js";
import { createKeyLocks } from "./pg-key-locks.js";
import { pgIngest } from "./pg-ingest.js";
import { pgPasses } from "./pg-pass.js";
import { MIGRATIONS } from "./migrations/index.js";
import { appliedMigrations, migratePostgres } from "./pg-migrate.js";
import { createNotifications } from "./pg-notifications.js";
import { createPgPool, SESSION_SETTINGS } from "./pg-pool.js";
import { pgRootSql } from "./pg-sql.js";
import { pgMarkStale, pgMarkStaleAtCommit } from "./pg-stale.js";
import { createAnalyzer } from "./pg-analyze.js";
import { setClaimSession } from "../claim-session.js";
import { createPgWriteGroups } from "./pg-write-group.js";
import type { PgTarget } from "./pg-target.js";


/** Options of the PostgreSQL store. */
export interface PostgresStoreOptions {
  /** Apply pending migrations on open (default true); otherwise refuse a database behind this ddsctl. */
  migrate?: boolean;
  /** Connections in the pool (default: the URL's pool_size, else DDS_DB_POOL, else 10). */
  poolSize?: number;
  /** Read for `DDS_DB_POOL` and libpq's `PG*` variables (the application's environment; none read otherwise). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Told how a long upgrade of an earlier release's database advances. */
  onMigrationProgress?: OnMigrationProgress;
}

/**
 * The listening connection holds the node's claim marks: a host that vanished without
 * closing it (a lost machine, a cut network) is found by PostgreSQL's keepalive probes
 * within about 4 s (2 s idle, then 2 probes a second apart; 4 s at most for data it sent
 * that stays unacknowledged), and its claims are taken over.
 */
const LISTENER_SETTINGS: Record<string, string> = { tcp_keepalives_idle: "2", tcp_keepalives_interval: "1", tcp_keepalives_count: "2", tcp_user_timeout: "4000" };

/** How long `ping` (readiness) waits for the database. */
const PING_MS = 2000;

/**
 * The error of a database that cannot be opened: a 503 when it may come (serve waits for
 * it), a refused login (exit 7, saying where the password came from), else as it is.
 */
function openFailure(err: unknown, location: string, target: PgTarget): DdsError {
  if (err instanceof DdsError) return err;
  if (isLoginRefused(err)) {
    const note = isPasswordRefused(err) ? target.passwordNote() : undefined;
    return errors.loginRefused(location, `${reasonOf(err)}${note ? ` (${note})` : ""}`);
  }
  const unavailable = asDatabaseUnavailable(err);
  if (unavailable) return errors.databaseUnavailable(`cannot open database ${location}: ${reasonOf(err)}`, unavailable.retryAfter);
  return new DdsError("unavailable", `cannot open database ${location}: ${(err as Error).message}`);
}

/**
 * Opens the PostgreSQL store at `url`: a connection pool, the schema checked (and migrated,
 * unless told not to), the notification listener that lets several nodes act as one
 * service, and the connection that holds this node's Idempotency-Key marks. A database
 * that cannot be reached fails with `database_unavailable` (exit 6, HTTP 503).
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const location = displayPgUrl(url, options.env);
  const pool = createPgPool(url, location, { size: options.poolSize, env: options.env });
  let notifications: ReturnType<typeof createNotifications> | undefined;
  try {
    await migratePostgres(pool.client, location, options.migrate ?? true, options.onMigrationProgress);
    notifications = createNotifications(pool.target, { ...SESSION_SETTINGS, ...LISTENER_SETTINGS });
    await notifications.start();
  } catch (err) {
    await notifications?.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw openFailure(err, location, pool.target);
  }
  const listener = notifications;
  const analyze = createAnalyzer(pool);
  const groups = createPgWriteGroups(pool, listener);
  const sql = pgRootSql(pool, listener, groups);
  const keyLocks = createKeyLocks(pool);
  // Claims stand while the listening session holds their worker's mark (see claim-session.ts).
  setClaimSession(sql, listener.marks);
  // A database found unreachable: the listening connection may be silently dead too.
  pool.onReset(() => listener.reset());
  return {
    kind: "postgres",
    sql,
    location,
    hearsOtherProcesses: true,
    concurrentWriters: true,
    // Every writer of evidence, a write group's or a request's, keeps young tables'
    // statistics (pg-analyze.ts): every call that writes evidence inserts contributions.
    ingest: { ...pgIngest, insertContributions: (db, workspace, rows) => (analyze(), pgIngest.insertContributions(db, workspace, rows)) },
    passes: pgPasses,
    // Records the open write group holds are stamped there (pg-ingest-buffer.ts).
    markStale: (db, ids, records) => pgMarkStale(db, ids, groups.marks, groups.unheld(records)),
    markStaleAtCommit: pgMarkStaleAtCommit,
    writeGroup: () => groups.open(sql.memo),
    changeStamp: () => listener.stamp(),
    settled: () => listener.settled(),
    on: (signal: Signal, fn: () => void) => listener.on(signal, fn),
    lockKey: (workspace, key) => keyLocks.lock(workspace, key),
    lockKeyAndRead: (workspace, key, read) => keyLocks.lockAndRead(workspace, key, read),
    reachable: () => !pool.availability.down,
    poolStats: () => pool.stats(),
    observeQueries: (fn) => pool.observe(fn),
    async ping() {
      // A stuck network must not hang a readiness check for the driver's whole connect timeout.
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          pool.availability.suspect();
          reject(new Error(`database did not answer within ${PING_MS / 1000} s`));
        }, PING_MS);
      });
      try {
        await Promise.race([pool.use((client) => client.unsafe("SELECT 1")), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await keyLocks.close();
      await listener.close();
      await pool.end();
    },
  };
}

/** The schema of a PostgreSQL database: its version, this ddsctl's latest, and (with `apply`) the migrations applied now. */
export async function postgresSchema(
  url: string,
  apply: boolean,
  onMigrationProgress?: OnMigrationProgress,
  env?: PostgresStoreOptions["env"],
): Promise<{ version: number; latest: number; applied: number }> {
  const location = displayPgUrl(url, env);
  const pool = createPgPool(url, location, { size: 1, env });
  try {
    const applied = apply ? await migratePostgres(pool.client, location, true, onMigrationProgress) : 0;
    return { version: await appliedMigrations(pool.client), latest: MIGRATIONS.length, applied };
  } catch (err) {
    throw openFailure(err, location, pool.target);
  } finally {
    await pool.end().catch(() => undefined);
  }
}
