import { DdsError } from "../../contract/errors.js";
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from "./sqlite/sqlite-store.js";
import type { Store } from "./store.js";

export type { Store } from "./store.js";
export type { SqliteStore } from "./sqlite/sqlite-store.js";

/** True for a `postgres://` or `postgresql://` URL; anything else names a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** Opens the SQLite database at `path` (created on first use). */
export function openStore(path: string, options: SqliteStoreOptions = {}): SqliteStore {
  return openSqliteStore(path, options);
}

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /**
   * PostgreSQL only: apply pending migrations on open (default true). With false, a
   * database behind this ddsctl's schema is refused and `ddsctl migrate` must run first.
   */
  migrate?: boolean;
}

/**
 * Opens a database by location: a `postgres://` URL opens the PostgreSQL store (its driver
 * loaded only then), anything else is a SQLite file path.
 */
export async function openDatabase(location: string, options: OpenDatabaseOptions = {}): Promise<Store> {
  if (!isPostgresUrl(location)) return openSqliteStore(location);
  const { openPostgresStore } = await import("./postgres/pg-store.js");
  return openPostgresStore(location, options);
}

/** The store as the SQLite adapter, or a clear error for a command that needs one. */
export function requireSqlite(store: Store, what: string): SqliteStore {
  if (store.kind !== "sqlite") throw new DdsError("invalid_request", `${what} needs a SQLite database`);
  return store as SqliteStore;
}
