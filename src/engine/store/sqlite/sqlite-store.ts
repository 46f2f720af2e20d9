import type Database from "better-sqlite3";
import { openSqliteFile } from "./open-file.js";
import { backgroundCheckpoints, type BackgroundCheckpoints } from "./background-checkpoints.js";
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { DdsError, errors } from "../../../contract/errors.js";
import type { WriteGroup } from "../store.js";
import type { Signal } from "../sql.js";
import type { Store } from "../store.js";
import type { OnMigrationProgress } from "../migration-progress.js";
import { schemaSql } from "../schema/ddl.js";
import { TABLES } from "../schema/tables.js";
import { MIGRATIONS } from "./migrations/index.js";
import { publishEngineEvent } from "../../events.js";
import { sqliteIngest } from "./sqlite-ingest.js";
import { sqlitePasses } from "./sqlite-pass.js";
import { sqliteMarkStale } from "./sqlite-stale.js";
import { SqliteConnection, sqliteRootSql } from "./sqlite-sql.js";
import { watchWalIndex, type WalIndexWatch } from "./wal-index-watch.js";

/** The SQLite store: the port plus the raw connection (tests and hot paths of this adapter). */
export interface SqliteStore extends Store {
  readonly kind: "sqlite";
  readonly raw: Database.Database;
  readonly path: string;
  writeGroup(): WriteGroup;
  /** The checkpoints run in a thread of their own (undefined for a read-only or in-memory database). */
  readonly checkpoints: BackgroundCheckpoints | undefined;
}

/** Options for opening a SQLite store. */
export interface SqliteStoreOptions {
  /** Milliseconds to wait on a database locked by another process before failing (default 10 s). */
  busyTimeoutMs?: number;
  /** Opens an existing file without creating it (nor its folder). */
  readonly?: boolean;
  /** Told how a long upgrade of an earlier release's database advances. */
  onMigrationProgress?: OnMigrationProgress;
}

/**
 * Opens (creating if needed) the SQLite database at `path`, applies pending migrations,
 * and refuses a database written by a newer ddsctl. Synchronous: better-sqlite3 is.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): SqliteStore {
  if (path !== ":memory:" && !options.readonly) createPrivately(path);
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  let raw: Database.Database;
  try {
    raw = openSqliteFile(path, { timeout: busyTimeoutMs });
  } catch (err) {
    throw new DdsError("unavailable", `cannot open database ${path}: ${(err as Error).message}`);
  }
  try {
    raw.pragma("journal_mode = WAL");
    raw.pragma("synchronous = NORMAL");
    // Checkpoints (which sync the files) every ~40 MB of WAL instead of SQLite's ~4 MB: a
    // page rewritten by many commits in between is copied once, and syncs are a tenth as
    // frequent (about 9 % of a bulk ingest). The WAL file is cut back to 64 MB after one.
    raw.pragma("wal_autocheckpoint = 10000");
    raw.pragma("journal_size_limit = 67108864");
    raw.pragma("foreign_keys = ON");
    // A write group's savepoints copy each page they change first: in memory, not a temp file.
    raw.pragma("temp_store = MEMORY");
    migrate(raw, path, options.onMigrationProgress);
    // From here on the store waits for other processes itself, without stopping the event
    // loop (see whenFree); only a write group, which is synchronous, waits inside SQLite.
    raw.pragma("busy_timeout = 0");
  } catch (err) {
    raw.close();
    throw err;
  }
  const listeners = new Map<Signal, Set<() => void>>();
  const announce = (signal: Signal) => {
    for (const fn of listeners.get(signal) ?? []) fn();
  };
  const conn = new SqliteConnection(raw, announce, busyTimeoutMs);
  const sql = sqliteRootSql(conn);
  const wal = watchWalIndex(path);
  // A reader (or a writer that writes little) never starts the thread: see backgroundCheckpoints.
  // Without a wal-index file to read (an in-memory database) there is nothing to copy.
  const checkpoints = options.readonly || !wal ? undefined : backgroundCheckpoints(path, wal);
  conn.afterCommit = checkpoints?.afterCommit;
  return {
    kind: "sqlite",
    sql,
    raw,
    path,
    location: path,
    file: path,
    hearsOtherProcesses: false,
    concurrentWriters: false,
    ingest: sqliteIngest,
    passes: sqlitePasses,
    changeStamp: changeStamps(raw, conn, wal),
    on(signal, fn) {
      let set = listeners.get(signal);
      if (!set) listeners.set(signal, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    },
    markStale: sqliteMarkStale,
    writeGroup: () => openWriteGroup(conn),
    checkpoints,
    ping: async () => {
      await sql.get("SELECT 1");
    },
    close: async () => {
      if (!raw.open) return;
      if (raw.inTransaction) raw.exec("ROLLBACK");
      raw.close();
      // The thread's connection closes last, so SQLite's final checkpoint (and the WAL's
      // removal) is its; then no connection of this process holds a lock on the -shm file,
      // and closing the watch's descriptor of it cannot drop one (POSIX locks are per process).
      const ending = checkpoints?.close();
      if (ending) await ending;
      wal?.close();
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

/**
 * The change stamp: data_version (commits by other connections) and total_changes (rows
 * written through this one). One cheap statement each; the first takes a read lock, so it
 * is re-read at most every `maxAgeMs`, while this connection's writes count at once. The
 * wal-index header (see wal-index-watch.ts) is read on every call, so a commit by another
 * process that returned before the call is always counted, whatever `maxAgeMs`.
 */
function changeStamps(raw: Database.Database, conn: SqliteConnection, wal: WalIndexWatch | undefined): (maxAgeMs?: number) => string {
  const dataVersion = raw.prepare("PRAGMA data_version").pluck();
  const totalChanges = raw.prepare("SELECT total_changes()").pluck();
  let external = 0;
  let externalAt = -Infinity;
  // total_changes is asked again only after a statement that may have written (a read-mostly
  // server would otherwise run it on every request).
  let total = 0;
  let writesSeen = -1;
  // The last stamp and its parts: building the string on every call cost more than the
  // statement, and a read-mostly server asks on every request.
  let stamp = "";
  let stampExternal = -1;
  let stampTotal = -1;
  let stampWal = -1;
  // Commits by other processes seen in the wal-index on every call (one pread, no lock).
  let walCommits = 0;
  return (maxAgeMs = 0) => {
    const now = performance.now();
    if (now - externalAt >= maxAgeMs) {
      external = dataVersion.get() as number;
      externalAt = now;
    }
    if (wal?.changed()) walCommits++;
    if (conn.writes !== writesSeen) {
      writesSeen = conn.writes;
      total = totalChanges.get() as number;
    }
    if (total !== stampTotal || external !== stampExternal || walCommits !== stampWal) {
      stampTotal = total;
      stampExternal = external;
      stampWal = walCommits;
      stamp = `${external}.${walCommits}:${total}`;
    }
    return stamp;
  };
}

/**
 * Opens a write group: one IMMEDIATE transaction in which every engine transaction is a
 * savepoint (a failing call still undoes only itself). Commit and rollback are
 * synchronous, so they must come between calls, never while one is running.
 */
function openWriteGroup(conn: SqliteConnection): WriteGroup {
  const { raw } = conn;
  if (conn.groupOpen || raw.inTransaction) throw new Error("a write group is already open");
  if (conn.lock.busy) throw new Error("a write group cannot open while a call is running");
  // Synchronous (the contract's write groups are): wait inside SQLite for another process.
  raw.pragma(`busy_timeout = ${conn.busyTimeoutMs}`);
  try {
    conn.run("BEGIN IMMEDIATE");
  } finally {
    raw.pragma("busy_timeout = 0");
  }
  conn.groupOpen = true;
  conn.groupMemo.clear();
  const between = (what: string) => {
    if (conn.lock.busy) throw new Error(`a write group cannot ${what} while a call is running in it`);
  };
  return {
    rows: "table",
    runPasses: async (run) => {
      await run();
      return true;
    },
    commit: () => {
      between("commit");
      conn.groupOpen = false;
      conn.groupMemo.clear();
      // SQLite rolls a transaction back on its own after some errors (a full disk): then
      // nothing of the group is durable, and the caller must hear it.
      if (!raw.inTransaction) {
        conn.groupSignals.clear();
        throw new DdsError("unavailable", "the write group was rolled back by the database; nothing of it was kept");
      }
      conn.run("COMMIT");
      conn.flushGroupSignals();
      conn.afterCommit?.();
    },
    rollback: () => {
      between("roll back");
      conn.groupOpen = false;
      conn.groupMemo.clear();
      conn.groupSignals.clear();
      if (raw.inTransaction) conn.run("ROLLBACK");
    },
  };
}

/**
 * The schema of a SQLite database: its version, this ddsctl's latest, and (with `apply`)
 * the migrations applied now. Without `apply` the file is only read (and must exist).
 */
export function sqliteSchema(path: string, apply: boolean, onMigrationProgress?: OnMigrationProgress): { version: number; latest: number; applied: number } {
  if (apply) {
    const before = existsSync(path) ? readVersion(path) : 0;
    const store = openSqliteStore(path, { onMigrationProgress });
    const version = Number(store.raw.pragma("user_version", { simple: true }));
    // Synchronous: the close's body runs before its promise is returned.
    void store.close();
    return { version, latest: MIGRATIONS.length, applied: version - before };
  }
  if (!existsSync(path)) throw new DdsError("not_found", `no database at ${path}`);
  return { version: readVersion(path), latest: MIGRATIONS.length, applied: 0 };
}

function readVersion(path: string): number {
  const raw = openSqliteFile(path, { readonly: true, fileMustExist: true });
  try {
    return Number(raw.pragma("user_version", { simple: true }));
  } finally {
    raw.close();
  }
}

/**
 * Brings the database to this ddsctl's schema, in one transaction (a killed upgrade leaves
 * it as it was): a new database is created from the declaration at once; one written by
 * an earlier release runs the migrations it lacks.
 */
function migrate(raw: Database.Database, path: string, progress?: OnMigrationProgress): void {
  const known = MIGRATIONS.length;
  const applied = Number(raw.pragma("user_version", { simple: true }));
  if (applied > known) {
    throw errors.schemaTooNew(path, applied, known);
  }
  if (applied === known) return;
  const from = raw
    .transaction(() => {
      // Re-read inside the write lock: another process may have migrated meanwhile.
      const now = Number(raw.pragma("user_version", { simple: true }));
      if (now === known) return now;
      const empty = now === 0 && raw.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'").pluck().get() === 0;
      if (empty) {
        raw.exec(schemaSql("sqlite", TABLES));
        // The key that signs list cursors: random per database (see settings-repo.ts).
        raw.exec("INSERT INTO settings (name, value) VALUES ('cursor_key', lower(hex(randomblob(32))))");
      } else {
        for (let i = now; i < known; i++) {
          MIGRATIONS[i].apply(raw, progress);
          if (MIGRATIONS[i].buildsLatest) break;
        }
      }
      raw.pragma(`user_version = ${known}`);
      return now;
    })
    .immediate();
  if (from < known) publishEngineEvent({ event: "migration_applied", store: "sqlite", location: path, from, to: known });
}
