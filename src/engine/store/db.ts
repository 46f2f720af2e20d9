import { isPostgresUrl } from "./location.js";
import type { OnMigrationProgress } from "./migration-progress.js";
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from "./sqlite/sqlite-store.js";
import type { Store } from "./store.js";

export type { Store } from "./store.js";
export type { MigrationProgress, OnMigrationProgress } from "./migration-progress.js";
export type { SqliteStore } from "./sqlite/sqlite-store.js";
export { asDatabaseUnavailable } from "./db-errors.js";

export { isPostgresUrl, redactUrl } from "./location.js";

/** Opens the SQLite database at `path` (created on first use). */
export function openSqliteDatabase(path: string, options: SqliteStoreOptions = {}): SqliteStore {
  return openSqliteStore(path, options);
}

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /**
   * PostgreSQL only: apply pending migrations on open (default true). With false, a
   * database behind this ddsctl's schema is refused and `ddsctl migrate` must run first.
   */
  migrate?: boolean;
  /** Told how a long upgrade of an earlier release's database advances (a terminal shows it). */
  onMigrationProgress?: OnMigrationProgress;
  /** PostgreSQL only: connections in this process's pool (default: the URL's pool_size, DDS_DB_POOL, 10). */
  poolSize?: number;
  /** PostgreSQL only: the environment read for `DDS_DB_POOL` and libpq's `PG*` variables. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Opens a database by location: a `postgres://` URL opens the PostgreSQL store (its driver
 * loaded only then), anything else is a SQLite file path.
 */
export async function openDatabase(location: string, options: OpenDatabaseOptions = {}): Promise<Store> {
  if (!isPostgresUrl(location)) return openSqliteStore(location, { onMigrationProgress: options.onMigrationProgress });
  const { openPostgresStore } = await import("./postgres/pg-store.js");
  return openPostgresStore(location, options);
}

/** A database's schema: where it is, its version, this ddsctl's latest, what was applied now. */
export interface SchemaState {
  kind: "sqlite" | "postgres";
  location: string;
  version: number;
  latest: number;
  applied: number;
}

/**
 * Applies the migrations a database lacks (`ddsctl migrate`), or with `check` only reports
 * its version. A database from a newer ddsctl is refused either way.
 */
export async function migrateDatabase(
  location: string,
  options: { check?: boolean; onMigrationProgress?: OnMigrationProgress; env?: Readonly<Record<string, string | undefined>> } = {},
): Promise<SchemaState> {
  const apply = !options.check;
  if (!isPostgresUrl(location)) {
    const { sqliteSchema } = await import("./sqlite/sqlite-store.js");
    return { kind: "sqlite", location, ...sqliteSchema(location, apply, options.onMigrationProgress) };
  }
  const { postgresSchema } = await import("./postgres/pg-store.js");
  const { displayPgUrl } = await import("./location.js");
  return { kind: "postgres", location: displayPgUrl(location, options.env), ...(await postgresSchema(location, apply, options.onMigrationProgress, options.env)) };
}
