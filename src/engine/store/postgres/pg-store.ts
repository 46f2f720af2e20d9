import postgres from "postgres";
import { DdsError } from "../../../contract/errors.js";
import type { Signal } from "../sql.js";
import type { OnMigrationProgress } from "../migration-progress.js";
import type { Store } from "../store.js";
import { redactUrl } from "../location.js";
import { createKeyLocks } from "./pg-key-locks.js";
import { pgIngest } from "./pg-ingest.js";
import { meterPool } from "./pg-pool-meter.js";
import { MIGRATIONS } from "./migrations/index.js";
import { appliedMigrations, migratePostgres } from "./pg-migrate.js";
import { createNotifications } from "./pg-notifications.js";
import { pgRootSql } from "./pg-sql.js";
import { PG_TYPES } from "./pg-types.js";
import { pgMarkStale } from "./pg-stale.js";
import { noDelaySockets } from "./pg-socket.js";
import { createAnalyzer } from "./pg-analyze.js";
import { createPgWriteGroups } from "./pg-write-group.js";

/** Options of the PostgreSQL store. */
export interface PostgresStoreOptions {
  /** Apply pending migrations on open (default true); otherwise refuse a database behind this ddsctl. */
  migrate?: boolean;
  /** Connections in the pool (default: DDS_DB_POOL, else 10). */
  poolSize?: number;
  /** Told how a long upgrade of an earlier release's database advances. */
  onMigrationProgress?: OnMigrationProgress;
}

/** The connection pool every PostgreSQL store (and `ddsctl migrate`) uses. */
export function createClient(url: string, poolSize?: number): postgres.Sql {
  const max = poolSize ?? (Number(process.env.DDS_DB_POOL) || 10);
  return postgres(url, {
    max,
    connect_timeout: 10,
    idle_timeout: 60,
    onnotice: () => undefined,
    // Undefined parameters bind as NULL, as they do on SQLite.
    transform: { undefined: null },
    types: PG_TYPES,
    // Times are read as text in UTC (pg-types.ts turns them into the API's ISO form).
    connection: { TimeZone: "UTC" },
    // Not in the driver's types: its socket factory (see pg-socket.ts).
    ...({ socket: noDelaySockets() } as object),
  });
}

/** The pool with its use counted (see meterPool), sized as the driver was told. */
const meterPoolOf = (client: postgres.Sql) => meterPool(client, client.options.max);

/**
 * Opens the PostgreSQL store at `url`: a connection pool, the schema checked (and migrated,
 * unless told not to), the notification listener that lets several nodes act as one
 * service, and the connection that holds this node's Idempotency-Key marks.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const location = redactUrl(url);
  const pool = meterPoolOf(createClient(url, options.poolSize));
  const client = pool.client;
  try {
    await migratePostgres(client, location, options.migrate ?? true, options.onMigrationProgress);
  } catch (err) {
    await client.end({ timeout: 1 }).catch(() => undefined);
    if (err instanceof DdsError) throw err;
    throw new DdsError("unavailable", `cannot open database ${location}: ${(err as Error).message}`);
  }
  const notifications = createNotifications(url);
  await notifications.start();
  const groups = createPgWriteGroups(client, notifications, createAnalyzer(client));
  const sql = pgRootSql(client, notifications, groups);
  const keyLocks = createKeyLocks(client);
  return {
    kind: "postgres",
    sql,
    location,
    ingest: pgIngest,
    markStale: (db, ids) => pgMarkStale(db, ids, groups.marks),
    writeGroup: () => groups.open(sql.memo),
    changeStamp: () => notifications.stamp(),
    on: (signal: Signal, fn: () => void) => notifications.on(signal, fn),
    lockKey: (workspace, key) => keyLocks.lock(workspace, key),
    poolStats: () => pool.stats(),
    async ping() {
      // A stuck network must not hang a health check for the driver's whole connect timeout.
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("database did not answer within 2 s")), 2000);
      });
      try {
        await Promise.race([client.unsafe("SELECT 1"), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await keyLocks.close();
      await notifications.close();
      await client.end({ timeout: 5 });
    },
  };
}

/** The schema of a PostgreSQL database: its version, this ddsctl's latest, and (with `apply`) the migrations applied now. */
export async function postgresSchema(url: string, apply: boolean, onMigrationProgress?: OnMigrationProgress): Promise<{ version: number; latest: number; applied: number }> {
  const location = redactUrl(url);
  const client = createClient(url, 1);
  try {
    const applied = apply ? await migratePostgres(client, location, true, onMigrationProgress) : 0;
    return { version: await appliedMigrations(client), latest: MIGRATIONS.length, applied };
  } catch (err) {
    if (err instanceof DdsError) throw err;
    throw new DdsError("unavailable", `cannot open database ${location}: ${(err as Error).message}`);
  } finally {
    await client.end({ timeout: 1 }).catch(() => undefined);
  }
}
