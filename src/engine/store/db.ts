import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { DdsError } from "../../contract/errors.js";
import { MIGRATIONS } from "./migrations/index.js";
import * as schema from "./schema.js";

/** The drizzle database handle the repositories use. */
export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** An open store: drizzle on top, the raw connection for hot paths and transactions. */
export interface Store {
  db: Db;
  raw: Database.Database;
  path: string;
  /** Runs `fn` in one IMMEDIATE transaction (the write lock is taken up front); nested calls are savepoints. */
  tx<T>(fn: () => T): T;
  /** Runs `fn` in a savepoint of the current transaction (or a deferred transaction). */
  savepoint<T>(fn: () => T): T;
  /**
   * A value that changes whenever the database may have changed: a commit by another
   * connection (data_version) or any row written through this one (total_changes). One
   * cheap statement; caches of what was read stay valid while it is unchanged.
   */
  changeStamp(): string;
  /**
   * The same stamp, but the other-connections half (the only part that takes a read
   * lock, costly next to a small request) is re-read at most every `maxAgeMs`: a commit
   * by another process is noticed up to that late, this connection's writes at once.
   */
  changeStampWithin(maxAgeMs: number): string;
  close(): void;
}

/** Options for opening a store. */
export interface StoreOptions {
  /** Milliseconds to wait on a locked database before failing (default 10 s). */
  busyTimeoutMs?: number;
  readonly?: boolean;
}

/**
 * Opens (creating if needed) the SQLite database at `path`, applies pending migrations,
 * and refuses a database written by a newer ddsctl.
 */
export function openStore(path: string, options: StoreOptions = {}): Store {
  if (path !== ":memory:" && !options.readonly) createPrivately(path);
  let raw: Database.Database;
  try {
    raw = new Database(path, { timeout: options.busyTimeoutMs ?? 10_000 });
  } catch (err) {
    throw new DdsError("unavailable", `cannot open database ${path}: ${(err as Error).message}`);
  }
  try {
    raw.pragma("journal_mode = WAL");
    raw.pragma("synchronous = NORMAL");
    raw.pragma("foreign_keys = ON");
    migrate(raw, path);
  } catch (err) {
    raw.close();
    throw err;
  }
  const db = drizzle(raw, { schema }) as Db;
  // One wrapper for every transaction: better-sqlite3 prepares BEGIN/COMMIT/SAVEPOINT
  // statements per wrapper, so creating one per call costs more than the work inside.
  const run = raw.transaction(<T>(fn: () => T): T => fn());
  const dataVersion = raw.prepare("PRAGMA data_version").pluck();
  const totalChanges = raw.prepare("SELECT total_changes()").pluck();
  let external = 0;
  let externalAt = -Infinity;
  // The last stamp and its parts: building the string on every call cost more than the
  // statement, and a read-mostly server asks on every request.
  let stamp = "";
  let stampExternal = -1;
  let stampTotal = -1;
  const changeStampWithin = (maxAgeMs: number): string => {
    const now = performance.now();
    if (now - externalAt >= maxAgeMs) {
      external = dataVersion.get() as number;
      externalAt = now;
    }
    const total = totalChanges.get() as number;
    if (total !== stampTotal || external !== stampExternal) {
      stampTotal = total;
      stampExternal = external;
      stamp = `${external}:${total}`;
    }
    return stamp;
  };
  return {
    db,
    raw,
    path,
    tx: <T>(fn: () => T): T => (raw.inTransaction ? run(fn) : run.immediate(fn)) as T,
    savepoint: <T>(fn: () => T): T => run(fn) as T,
    changeStamp: () => changeStampWithin(0),
    changeStampWithin,
    close: () => {
      if (raw.open) raw.close();
    },
  };
}

/**
 * Creates a new database's folder (0700) and empty file (0600) before SQLite opens it:
 * SQLite gives the `-wal` and `-shm` files the mode of the database file, so none of the
 * three is readable by other users. An existing file keeps the mode it has.
 */
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    // "wx": never opens an existing file. Closing a descriptor of a database file would
    // drop every SQLite lock this process holds on it (POSIX locks are per process).
    closeSync(openSync(path, "wx", 0o600));
  } catch {
    // It exists already, or cannot be created here (SQLite's own open then says why).
  }
}

/** Applies the migrations this ddsctl knows and the database lacks, in one transaction. */
function migrate(raw: Database.Database, path: string): void {
  const known = MIGRATIONS.length;
  const applied = Number(raw.pragma("user_version", { simple: true }));
  if (applied > known) {
    throw new DdsError(
      "unavailable",
      `database ${path} has schema version ${applied}, newer than this ddsctl supports (${known}); upgrade ddsctl`,
    );
  }
  if (applied === known) return;
  raw
    .transaction(() => {
      // Re-read inside the write lock: another process may have migrated meanwhile.
      const now = Number(raw.pragma("user_version", { simple: true }));
      for (let i = now; i < known; i++) {
        raw.exec(MIGRATIONS[i].sql);
      }
      raw.pragma(`user_version = ${known}`);
    })
    .immediate();
}

/** Creates the workspace row if it does not exist yet. */
export function ensureWorkspace(store: Store, name: string): void {
  store.raw
    .prepare("INSERT INTO workspaces(name, created_at) VALUES (?, ?) ON CONFLICT(name) DO NOTHING")
    .run(name, new Date().toISOString());
}
