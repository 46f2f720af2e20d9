import type { BulkResponse } from "../../../contract/schemas/index.js";
import { toBatches, type Batch, type BatchLine } from "../../ndjson/batches.js";
import { lineHash, type LineMark } from "../../ndjson/line-ledger.js";
import { isOverLong, type PrefixDigest } from "../../ndjson/line-splitter.js";
import type { Reject } from "../../ndjson/rejects.js";
import type { Window } from "../../ndjson/windows.js";
import type { ImportKind, KindSpec } from "./import-kinds.js";
import type { LineClassifier } from "./line-items.js";
import { overLongReject } from "./line-parse.js";
import type { ResumePlan } from "./resume-plan.js";
import type { PriorLedger } from "../../ndjson/prior-ledger.js";

/**
 * One window of the input on its way through the import: its lines classified, its
 * batches, and what the service answered, until it can be committed to the rejects
 * file and the checkpoint (in window order).
 */
export class WindowWork {
  readonly lineCount: number;
  readonly first: number;
  readonly last: number;
  readonly digest: PrefixDigest;
  skipped = 0;
  /** Lines a dry run found valid. */
  valid = 0;
  created = 0;
  replayed = 0;
  /** Contributions answered 200: equal to the accepted one of their source, nothing stored. */
  unchanged = 0;
  /** Lines an earlier run of the same file stored as they read now (its ledger): not sent. */
  storedBefore = 0;
  /** The id of something the window stored (see Checkpoint.anchor). */
  anchor: string | undefined;
  superseded = 0;
  batches: Batch[] = [];
  /** Batches not answered yet. */
  remaining = 0;
  /** A batch of this window failed as a whole: the import stops before committing it. */
  failed = false;
  readonly touched: string[] = [];
  /** Lines a resume's checkpoint covers that read as they did: not sent again. */
  resumeSkipped = 0;
  /** Covered lines stored before and edited since: reported, never sent twice. */
  readonly changed: number[] = [];
  /** Covered lines whose earlier reject still holds (they read as they did when it was written). */
  readonly keepPrior = new Set<number>();
  private readonly rejects: Reject[] = [];
  /** Per line (from `first`): the ledger mark it keeps, or the hash of its text as read now. */
  private readonly tracked: (LineMark | number)[] = [];
  private readonly skippedLines = new Set<number>();

  constructor(win: Window) {
    this.lineCount = win.lines.length;
    this.first = win.first;
    this.last = win.last;
    this.digest = win.digest;
  }

  /** Notes a line that is skipped (blank, another kind). */
  skip(no: number): void {
    this.skipped++;
    this.skippedLines.add(no);
  }

  /** Remembers, for the line ledger, a line's earlier mark or the hash of its text now. */
  track(no: number, value: LineMark | number): void {
    this.tracked[no - this.first] = value;
  }

  /** The line ledger's marks of the window, once its batches are answered (tracked windows only). */
  marks(): LineMark[] {
    const rejected = new Set(this.rejects.map((r) => r.line));
    return this.tracked.map((t, i): LineMark => {
      if (typeof t !== "number") return t;
      const no = this.first + i;
      return { status: rejected.has(no) ? "rejected" : this.skippedLines.has(no) ? "skipped" : "stored", hash: t };
    });
  }

  /** Notes a line rejected before sending. */
  reject(reject: Reject): void {
    this.rejects.push(reject);
  }

  /** Maps a bulk response back to the lines of its batch. */
  record(spec: KindSpec, batch: Batch, res: BulkResponse, sentAt: string): void {
    for (const it of res.items) {
      const line = batch.lines[it.index];
      if (!line) continue;
      if (it.error) {
        this.rejects.push({ line: line.no, error: it.error, input: line.text });
        continue;
      }
      if (it.status === 200 && spec.verb === "created") {
        this.unchanged++;
      } else if (spec.appliedNow && !spec.appliedNow(it.data, sentAt)) {
        this.replayed++;
      } else {
        this.created++;
        const supersedes = (it.data as { supersedes?: unknown } | undefined)?.supersedes;
        if (typeof supersedes === "string") this.superseded++;
      }
      const contextId = spec.contextOf?.(it.data);
      if (contextId) this.touched.push(contextId);
      this.anchor ??= spec.anchorOf?.(it.data);
    }
  }

  /** Every reject of the window, in line order. */
  sortedRejects(): Reject[] {
    return this.rejects.sort((a, b) => a.line - b.line);
  }
}

/** How a window is read: the import's limits, and what a resume knows of the lines before. */
export interface WindowContext {
  kind: ImportKind;
  classifier: LineClassifier;
  maxLineBytes: number;
  dryRun: boolean;
  /** A resume with a line ledger: the lines its checkpoint covers are checked against it. */
  plan?: ResumePlan;
  /** A plain rerun of a file an earlier run recorded: what it stored is not sent again. */
  prior?: PriorLedger;
  /** Record each line's mark for the line ledger. */
  track: boolean;
  /** Several batches in flight at once: each line needs its order key (see Dispatcher). */
  ordered: boolean;
}

/**
 * Classifies a window's lines and cuts the sendable ones into batches. Lines a resume's
 * checkpoint covers are sent only when they read differently from a line that failed or
 * was skipped; a stored line that reads differently is reported instead.
 */
export async function prepareWindow(win: Window, w: WindowContext): Promise<WindowWork> {
  const { classifier, plan } = w;
  const work = new WindowWork(win);
  const sendable: BatchLine[] = [];
  const covered = plan ? plan.marks(win.first, win.last) : [];
  for (const line of win.lines) {
    const mark = covered[line.no - win.first];
    // A plain rerun: what the earlier run stored, as it reads now, is not sent again.
    const before = w.prior?.mark(line.no);
    if (before?.status === "stored" && before.hash === lineHash(line)) {
      work.track(line.no, before);
      work.storedBefore++;
      continue;
    }
    if (mark) {
      const decision = plan!.decide(line, mark);
      if (decision !== "again") {
        work.track(line.no, mark);
        if (decision === "changed") work.changed.push(line.no);
        else work.resumeSkipped++;
        if (decision === "done" && mark.status === "rejected") work.keepPrior.add(line.no);
        continue;
      }
    }
    if (w.track) work.track(line.no, lineHash(line));
    if (isOverLong(line)) {
      work.reject(overLongReject(line, w.maxLineBytes));
      continue;
    }
    let c = classifier.classify(line.text);
    if (c instanceof Promise) c = await c;
    if ("skip" in c) work.skip(line.no);
    else if ("problem" in c) work.reject({ line: line.no, error: c.problem, input: line.text });
    else sendable.push({ no: line.no, text: line.text, item: c.item, order: w.ordered ? classifier.orderKey(c.item) : undefined });
  }
  if (w.dryRun) work.valid = sendable.length;
  else work.batches = toBatches(w.kind, sendable);
  work.remaining = work.batches.length;
  return work;
}
