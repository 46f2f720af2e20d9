import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";

/** The wal-index header's two copies, where every commit writes its frame count and counter. */
const HEADER_BYTES = 96;
/** Where the header keeps the WAL's last frame, and the checkpoint info (after the header) the frames copied back. */
const MX_FRAME_AT = 16;
const BACKFILL_AT = HEADER_BYTES;

/** See watchWalIndex. */
export interface WalIndexWatch {
  /** True when the header differs from the last call's. */
  changed(): boolean;
  /** The WAL's last frame and the frames a checkpoint copied back so far; undefined when unreadable. */
  frames(): { max: number; backfilled: number } | undefined;
  close(): void;
}

/**
 * Notices commits by other connections to a WAL database without a statement: every commit
 * rewrites the header of the wal-index (the `-shm` file SQLite maps into every connection's
 * memory; its change counter and frame count move, https://www.sqlite.org/walformat.html),
 * before the committing call returns. Reading those bytes is one pread, with no lock, where
 * `PRAGMA data_version` takes a read lock; so it can be asked on every request and a commit
 * another process reported done is seen by the next one.
 *
 * `changed()` is true when the header differs from the last call (a torn read of a header
 * being written counts as a change: it only costs a cache). Undefined when there is no such
 * file to read (an in-memory database, or one not in WAL mode): the caller then asks SQLite.
 */
export function watchWalIndex(dbPath: string): WalIndexWatch | undefined {
  if (dbPath === "" || dbPath === ":memory:") return undefined;
  let fd: number;
  try {
    fd = openSync(`${dbPath}-shm`, "r");
  } catch {
    return undefined;
  }
  let last = Buffer.alloc(HEADER_BYTES);
  let next = Buffer.alloc(HEADER_BYTES);
  const counts = Buffer.alloc(BACKFILL_AT + 4);
  const u32 = endianness() === "LE" ? (at: number) => counts.readUInt32LE(at) : (at: number) => counts.readUInt32BE(at);
  let open = true;
  return {
    changed() {
      if (!open) return true;
      try {
        const n = readSync(fd, next, 0, HEADER_BYTES, 0);
        if (n < HEADER_BYTES) next.fill(0, n);
      } catch {
        return true;
      }
      if (next.equals(last)) return false;
      [last, next] = [next, last];
      return true;
    },
    frames() {
      if (!open) return undefined;
      try {
        if (readSync(fd, counts, 0, counts.length, 0) < counts.length) return undefined;
      } catch {
        return undefined;
      }
      return { max: u32(MX_FRAME_AT), backfilled: u32(BACKFILL_AT) };
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
