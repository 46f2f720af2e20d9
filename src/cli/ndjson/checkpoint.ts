import { createHash } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, readSync, renameSync, statSync, writeFileSync } from "node:fs";
import { errors } from "../../contract/errors.js";

/** How many leading bytes of the input the checkpoint fingerprints up front. */
const HEAD_BYTES = 64 * 1024;

/** The identity of an input file, checked before a resume reads anything. */
export interface InputFingerprint {
  size: number;
  /** Informational: a copied file has another mtime but is still the same input. */
  mtimeMs: number;
  /** sha256 of the first 64 KiB. */
  headSha256: string;
}

/**
 * Progress of one import, written atomically (temp file + rename) after every batch the
 * service acknowledged, so after a crash `--resume` restarts at the first line that may
 * not have been applied. Lines up to `lastCompletedLine` are done; their bytes hash to
 * `prefixSha256`, which a resume re-checks while it streams past them.
 */
export interface Checkpoint {
  version: 1;
  kind: string;
  input: ({ path: string } & InputFingerprint) | { path: "-" };
  lastCompletedLine: number;
  /** Bytes of the input through the end of `lastCompletedLine`. */
  bytes: number;
  prefixSha256: string;
  /** The rejects file and its length when the checkpoint was written. */
  rejects: { path: string; bytes: number } | null;
  /**
   * The line ledger (what became of each line, see LineLedger). With it, a resume accepts
   * an input edited in place; a checkpoint without one (an older ddsctl) needs the same input.
   */
  lines?: string;
  /**
   * The id of a contribution (or record) the run stored: a plain rerun of the same file
   * trusts its ledger only where the target it runs against holds it (not a new database).
   */
  anchor?: string;
  /** True once the whole input was imported. */
  complete: boolean;
  updatedAt: string;
}

/** Fingerprints an input file: size, mtime and a hash of its head. */
export function fingerprint(path: string): InputFingerprint {
  const st = statSync(path);
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(Math.min(HEAD_BYTES, st.size));
    let read = 0;
    while (read < head.length) {
      const n = readSync(fd, head, read, head.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return { size: st.size, mtimeMs: st.mtimeMs, headSha256: createHash("sha256").update(head.subarray(0, read)).digest("hex") };
  } finally {
    closeSync(fd);
  }
}

/** Reads a checkpoint; undefined when there is none. A damaged one is a usage error. */
export function readCheckpoint(path: string): Checkpoint | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const cp = JSON.parse(readFileSync(path, "utf8")) as Checkpoint;
    if (cp.version !== 1 || typeof cp.lastCompletedLine !== "number" || typeof cp.prefixSha256 !== "string") throw new Error("unknown format");
    return cp;
  } catch (err) {
    throw errors.usage(`checkpoint ${path} is unreadable (${(err as Error).message}); delete it to start over`);
  }
}

/** Writes a checkpoint atomically: a reader (or a crash) sees the old or the new one. */
export function writeCheckpoint(path: string, cp: Checkpoint): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(cp, null, 2)}\n`);
  renameSync(tmp, path);
}

/**
 * Checks that a checkpoint belongs to this import before anything is skipped: same kind,
 * same size and same leading bytes. The full prefix hash is checked while streaming.
 */
export function verifyCheckpoint(cp: Checkpoint, kind: string, input: InputFingerprint | undefined, checkpointPath: string): void {
  const fix = `delete ${checkpointPath} (or run without --resume) to import from the start`;
  if (cp.kind !== kind) throw errors.usage(`checkpoint ${checkpointPath} is for "import ${cp.kind}", not "import ${kind}"; ${fix}`);
  if (input && "size" in cp.input) {
    if (cp.input.size !== input.size || cp.input.headSha256 !== input.headSha256) {
      throw errors.usage(`the input changed since checkpoint ${checkpointPath} was written (size or content differs); ${fix}`);
    }
  }
}
