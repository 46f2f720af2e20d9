import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { writeCheckpoint, type Checkpoint } from "../../ndjson/checkpoint.js";
import type { LineMark } from "../../ndjson/line-ledger.js";
import type { Reject, RejectsWriter } from "../../ndjson/rejects.js";
import type { ImportOptions, ImportStart } from "./import-setup.js";
import type { WindowWork } from "./window-work.js";
import { pushAll } from "../../../portable/arrays.js";

/** The counts of an import, as `--json` prints them (plus seconds and rate). */
export interface ImportCounts {
  lines: number;
  created: number;
  replayed: number;
  /** Lines whose contribution said what the accepted one of its source says: stored nothing (200). */
  unchanged: number;
  superseded: number;
  failed: number;
  skipped: number;
  /** Lines a resume found stored before and edited since: reported, not sent again. */
  changed: number;
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
 * their counts added, what became of each line written to the line ledger, the checkpoint
 * moved past them. Because the checkpoint records the rejects file's length too, a resume
 * can cut whatever a killed run wrote after it. A resume with a plan rewrites the rejects
 * file and never moves the checkpoint back: it moves only past the lines it already covered.
 */
export class ImportLedger {
  readonly counts: ImportCounts = { lines: 0, created: 0, replayed: 0, unchanged: 0, superseded: 0, failed: 0, skipped: 0, changed: 0, batches: 0, valid: 0 };
  /** Lines stored before and edited since (the first few, to name them). */
  readonly firstChanged: number[] = [];
  /** Contexts written to; undefined when unknown (deletes, resumed imports). */
  readonly touched: Set<string> | undefined;
  readonly firstRejects: Reject[] = [];
  /** The last line of the last committed window. */
  lastCommitted: number;
  /** Set once more lines failed than --max-errors allows. */
  overErrorLimit = false;
  /** Lines a resume skipped because the checkpoint records them as done. */
  resumeSkipped = 0;
  /** Lines a plain rerun did not send: an earlier run stored them as they read now (no work). */
  storedBefore = 0;
  /** The latest anchor a committed window gave (see Checkpoint.anchor), or the earlier run's. */
  anchor: string | undefined;
  /** When the first line past the checkpoint was read: where the import's rate starts. */
  sendingSince: number | undefined;
  private last: Checkpoint | undefined;
  /** Deferred mode: the newest checkpoint whose lines are not durable yet. */
  private pending: Checkpoint | undefined;
  private written: Checkpoint | undefined;
  private writtenAt = -Infinity;
  /** Line ledger marks of committed windows, written once their lines are durable. */
  private marks: { first: number; marks: LineMark[] }[] = [];
  /** With a plan: the rewritten rejects file is in place (before the first new checkpoint). */
  private rejectsInPlace: boolean;
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
    this.rejectsInPlace = start.plan === undefined;
  }

  /** Counts lines a resume skipped (before the checkpoint). */
  skip(lines: number, bytes: number): void {
    this.counts.lines += lines;
    this.counts.skipped += lines;
    this.resumeSkipped += lines;
    this.progress?.update(bytes, this.counts, 0);
  }

  /** Lines read and worked on so far, past the checkpoint or sent again (what the rate counts). */
  get sent(): number {
    return this.counts.lines - this.resumeSkipped - this.counts.changed - this.storedBefore;
  }

  /** Commits a finished window (the caller keeps file order). */
  commit(w: WindowWork): void {
    const c = this.counts;
    const list = w.sortedRejects();
    const plan = this.start.plan;
    // A plan rewrites the rejects file: the earlier rejects of lines left as they were come along.
    this.rejects.writeMerged(list, plan ? plan.prior.take(w.last, (line) => w.keepPrior.has(line)) : []);
    if (this.firstRejects.length < 5) pushAll(this.firstRejects, list.slice(0, 5 - this.firstRejects.length));
    c.lines += w.lineCount;
    c.skipped += w.skipped + w.resumeSkipped;
    this.resumeSkipped += w.resumeSkipped;
    c.changed += w.changed.length;
    if (this.firstChanged.length < 5) pushAll(this.firstChanged, w.changed.slice(0, 5 - this.firstChanged.length));
    if (this.start.lineLedger) this.marks.push({ first: w.first, marks: w.marks() });
    c.failed += list.length;
    c.valid += w.valid;
    c.created += w.created;
    c.replayed += w.replayed + w.storedBefore;
    this.storedBefore += w.storedBefore;
    c.unchanged += w.unchanged;
    this.anchor = w.anchor ?? this.anchor;
    c.superseded += w.superseded;
    c.batches += w.batches.length;
    for (const id of w.touched) this.touched?.add(id);
    this.lastCommitted = w.last;
    if (!this.deferred) this.writeMarks();
    // Lines a plan's checkpoint already covers are done once they are written: the
    // checkpoint stays where it is until the import gets past it.
    if (this.opts.checkpoint && !this.opts.dryRun && w.last >= this.start.skipUntil) {
      const cp: Checkpoint = {
        ...this.start.checkpointBase,
        lastCompletedLine: w.last,
        bytes: w.digest.bytes,
        prefixSha256: w.digest.sha256,
        // The file's final place: a plan's rewritten file is moved there before this is written.
        rejects: this.rejects.path ? { path: resolve(this.start.rejectsPath ?? this.rejects.path), bytes: this.rejects.bytes } : null,
        ...(this.anchor ? { anchor: this.anchor } : {}),
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

  /** The service has committed everything counted so far: the line ledger and the checkpoint may follow. */
  durable(): void {
    this.writeMarks();
    if (this.pending) this.last = this.pending;
    this.pending = undefined;
    if (this.last && this.last !== this.written) this.write(this.last, performance.now());
  }

  /**
   * Records the final state: the last commit (in deferred mode the last durable one, so a
   * group whose commit failed is never recorded), marked complete when the whole input was
   * done. A plan's rewritten rejects file goes in place even when the run stopped before
   * its checkpoint, the rejects of the lines it did not reach carried over, unless a
   * commit was lost (`durable` false): then the earlier file stays, as the ledger does.
   */
  finish(complete: boolean, durable = true): void {
    if (this.last && (complete || this.last !== this.written)) this.write({ ...this.last, complete }, performance.now());
    const plan = this.start.plan;
    if (plan && !this.rejectsInPlace && durable) {
      const from = this.lastCommitted + 1;
      const marks = plan.marks(from, plan.through);
      this.rejects.writeMerged([], plan.prior.take(plan.through, (line) => line >= from && marks[line - from]?.status === "rejected"));
      this.rejects.moveTo(this.start.rejectsPath!);
      this.rejectsInPlace = true;
    }
  }

  /** Writes the line ledger's marks of the windows committed so far. */
  private writeMarks(): void {
    for (const m of this.marks) this.start.lineLedger?.write(m.first, m.marks);
    this.marks = [];
  }

  private write(cp: Checkpoint, now: number): void {
    // The rewritten rejects file goes in place before a checkpoint describes it (and only
    // after the lines sent again are durable, so it never drops a reject the ledger keeps).
    if (!this.rejectsInPlace) {
      this.rejects.moveTo(this.start.rejectsPath!);
      this.rejectsInPlace = true;
    }
    writeCheckpoint(this.opts.checkpoint!, cp);
    this.written = cp;
    this.writtenAt = now;
  }
}
