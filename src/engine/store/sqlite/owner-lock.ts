import type Database from "better-sqlite3";
import { openSqliteFile } from "./open-file.js";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * A process's claim to be alive, visible to every other process on the same database:
 * marks it sets (an Idempotency-Key being processed) name it, and a mark whose process
 * is gone is not honoured.
 */
export interface ProcessOwner {
  /** Written into the marks this process sets. */
  id: string;
  /**
   * Whether the process that set a mark still runs: true for this process and any live
   * one, false for one that exited or was killed, undefined when it cannot be told (a
   * mark from before owners existed, or no lock directory): then the caller's time-out
   * decides.
   */
  isAlive(owner: string | null): boolean | undefined;
  /** Gives the claim up (at shutdown; a crash gives it up too, which is the point). */
  release(): void;
}

/** Owners alive in this process (several servers on one store in tests). */
const LIVE = new Set<string>();

/** The folder of lock files beside a database (`dds.db` → `dds.db.owners/`). */
export function ownersDirOf(dbPath: string): string {
  return `${dbPath}.owners`;
}

/**
 * Whether the lock file of `id` is held. The lock is SQLite's own file lock on a small
 * database held in exclusive locking mode for the owner's lifetime; the operating system
 * drops it when the process dies, however it dies (`kill -9` included). A file nobody
 * holds belongs to a dead process and is removed.
 */
function holderAlive(dir: string, id: string): boolean {
  const file = join(dir, `${id}.lock`);
  let probe: Database.Database;
  try {
    probe = openSqliteFile(file, { fileMustExist: true, timeout: 0 });
  } catch {
    return false; // no file: released at shutdown, or swept after a crash
  }
  try {
    probe.prepare("SELECT count(*) FROM sqlite_master").get();
    probe.close();
    rmSync(file, { force: true });
    return false;
  } catch {
    probe.close();
    return true; // SQLITE_BUSY: the owner's connection still holds its lock
  }
}

/**
 * Takes this process's lock beside the database at `dbPath` (a database in memory needs
 * none: only this process can see it). The lock file is locked under a temporary name and
 * only then renamed into place, so no other process ever sees it unlocked while its
 * owner lives. Lock files of dead processes are swept on the way.
 */
export function createProcessOwner(dbPath: string): ProcessOwner {
  const id = randomBytes(12).toString("hex");
  LIVE.add(id);
  const dir = dbPath === ":memory:" || dbPath === "" ? undefined : ownersDirOf(dbPath);
  let lock: Database.Database | undefined;
  if (dir) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const tmp = join(dir, `${id}.tmp`);
      lock = openSqliteFile(tmp, { timeout: 0 });
      lock.pragma("journal_mode = MEMORY");
      lock.pragma("locking_mode = EXCLUSIVE");
      // The first write takes the exclusive lock; exclusive locking mode keeps it until close.
      lock.exec("BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS owner (id TEXT); COMMIT");
      renameSync(tmp, join(dir, `${id}.lock`));
      for (const name of readdirSync(dir)) {
        const other = /^([0-9a-f]{24})\.lock$/.exec(name)?.[1];
        if (other && other !== id) holderAlive(dir, other);
      }
    } catch {
      // No lock directory (a read-only folder): marks carry no owner, the time-out decides.
      lock?.close();
      lock = undefined;
    }
  }
  const owned = dir === undefined || lock !== undefined;
  const release = () => {
    LIVE.delete(id);
    if (lock?.open) lock.close();
    if (dir && lock) rmSync(join(dir, `${id}.lock`), { force: true });
  };
  process.once("exit", release);
  return {
    id: owned ? id : "",
    isAlive(owner) {
      if (!owner) return undefined;
      if (LIVE.has(owner)) return true;
      if (!dir) return false;
      return holderAlive(dir, owner);
    },
    release() {
      process.off("exit", release);
      release();
    },
  };
}
