import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { writeCheckpoint, type Checkpoint } from "../../ndjson/checkpoint.js";
import type { Reject, RejectsWriter } from "../../ndjson/rejects.js";
import type { ImportOptions, ImportStart } from "./import-setup.js";
import type { WindowWork } from "./window-work.js";

/** The counts of an import, as `--json` prints them (plus seconds and rate). */
export interface ImportCounts {
  lines: number;
  created: number;
  replayed: number;
  superseded: number;
  failed: number;
  skipped: number;
  batches: number;
  /** Dry run only: lines that would be sent. */
  valid: number;
}

/** Observes progress (the TTY bar). */
export interface ImportProgress {
  /** `sent`: the lines read past the checkpoint, which a rate counts (skipped ones are not work). */
  update(bytes: number, counts: ImportCounts, sent: number): void;
  stop(): void;
}

/** Least time between two checkpoint writes. */
const CHECKPOINT_EVERY_MS = 200;

/**
 * Where finished windows are committed, strictly in file order: their rejects appended,
 * their counts added, the checkpoint moved past them. Because the checkpoint records the
 * rejects file's length too, a resume can cut whatever a killed run wrote after it.
 */
export class ImportLedger {
  readonly counts: ImportCounts = { lines: 0, created: 0, replayed: 0, superseded: 0, failed: 0, skipped: 0, batches: 0, valid: 0 };
  /** Contexts written to; undefined when unknown (deletes, resumed imports). */
  readonly touched: Set<string> | undefined;
  readonly firstRejects: Reject[] = [];
  /** The last line of the last committed window. */
  lastCommitted: number;
  /** Set once more lines failed than --max-errors allows. */
  overErrorLimit = false;
  /** Lines a resume skipped because the checkpoint records them as done. */
  resumeSkipped = 0;
  /** When the first line past the checkpoint was read: where the import's rate starts. */
  sendingSince: number | undefined;
  private last: Checkpoint | undefined;
  /** Deferred mode: the newest checkpoint whose lines are not durable yet. */
  private pending: Checkpoint | undefined;
  private written: Checkpoint | undefined;
  private writtenAt = -Infinity;
  /**
   * Set while the service commits batches in groups (local imports): the checkpoint then
   * moves only in `durable`, after the group's commit, never past uncommitted lines.
   */
  deferred = false;

  constructor(
    private readonly opts: ImportOptions,
    private readonly start: ImportStart,
    private readonly rejects: RejectsWriter,
    private readonly progress: ImportProgress | undefined,
    tracksContexts: boolean,
  ) {
    this.lastCommitted = start.skipUntil;
    this.touched = tracksContexts && start.skipUntil === 0 ? new Set() : undefined;
  }

  /** Counts lines a resume skipped (before the checkpoint). */
  skip(lines: number, bytes: number): void {
    this.counts.lines += lines;
    this.counts.skipped += lines;
    this.resumeSkipped += lines;
    this.progress?.update(bytes, this.counts, 0);
  }

  /** Lines read past the checkpoint so far (what the rate counts). */
  get sent(): number {
    return this.counts.lines - this.resumeSkipped;
  }

  /** Commits a finished window (the caller keeps file order). */
  commit(w: WindowWork): void {
    const c = this.counts;
    const list = w.sortedRejects();
    this.rejects.write(list);
    if (this.firstRejects.length < 5) this.firstRejects.push(...list.slice(0, 5 - this.firstRejects.length));
    c.lines += w.lineCount;
    c.skipped += w.skipped;
    c.failed += list.length;
    c.valid += w.valid;
    c.created += w.created;
    c.replayed += w.replayed;
    c.superseded += w.superseded;
    c.batches += w.batches.length;
    for (const id of w.touched) this.touched?.add(id);
    this.lastCommitted = w.last;
    if (this.opts.checkpoint && !this.opts.dryRun) {
      const cp: Checkpoint = {
        ...this.start.checkpointBase,
        lastCompletedLine: w.last,
        bytes: w.digest.bytes,
        prefixSha256: w.digest.sha256,
        rejects: this.rejects.path ? { path: resolve(this.rejects.path), bytes: this.rejects.bytes } : null,
        complete: false,
        updatedAt: new Date().toISOString(),
      };
      if (this.deferred) {
        // Not durable until the group commits: only `durable` may make it the checkpoint.
        this.pending = cp;
      } else {
        this.last = cp;
        // At most every CHECKPOINT_EVERY_MS: a rename per batch can cost more than the batch
        // on some file systems, and a slightly stale checkpoint only makes a resume re-send
        // a few batches, which their keys turn into replays. `finish` writes the last one.
        const now = performance.now();
        if (now - this.writtenAt >= CHECKPOINT_EVERY_MS) this.write(this.last, now);
      }
    }
    this.progress?.update(w.digest.bytes, c, this.sent);
    if (this.opts.maxErrors !== undefined && c.failed > this.opts.maxErrors) this.overErrorLimit = true;
  }

  /** The last line the service has durably committed (the checkpoint's, when there is one). */
  get durableThrough(): number {
    return this.deferred && this.opts.checkpoint && !this.opts.dryRun ? (this.last?.lastCompletedLine ?? this.start.skipUntil) : this.lastCommitted;
  }

  /** The service has committed everything counted so far: the checkpoint may follow. */
  durable(): void {
    if (this.pending) this.last = this.pending;
    this.pending = undefined;
    if (this.last && this.last !== this.written) this.write(this.last, performance.now());
  }

  /**
   * Records the final state: the last commit (in deferred mode the last durable one, so a
   * group whose commit failed is never recorded), marked complete when the whole input was done.
   */
  finish(complete: boolean): void {
    if (this.last && (complete || this.last !== this.written)) this.write({ ...this.last, complete }, performance.now());
  }

  private write(cp: Checkpoint, now: number): void {
    writeCheckpoint(this.opts.checkpoint!, cp);
    this.written = cp;
    this.writtenAt = now;
  }
}
