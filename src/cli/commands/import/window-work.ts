import type { BulkResponse } from "../../../contract/schemas/index.js";
import { toBatches, type Batch, type BatchLine } from "../../ndjson/batches.js";
import { isOverLong, type PrefixDigest } from "../../ndjson/line-splitter.js";
import type { Reject } from "../../ndjson/rejects.js";
import type { Window } from "../../ndjson/windows.js";
import type { ImportKind, KindSpec } from "./import-kinds.js";
import type { LineClassifier } from "./line-items.js";
import { overLongReject } from "./line-parse.js";

/**
 * One window of the input on its way through the import: its lines classified, its
 * batches, and what the service answered, until it can be committed to the rejects
 * file and the checkpoint (in window order).
 */
export class WindowWork {
  readonly lineCount: number;
  readonly last: number;
  readonly digest: PrefixDigest;
  skipped = 0;
  /** Lines a dry run found valid. */
  valid = 0;
  created = 0;
  replayed = 0;
  superseded = 0;
  batches: Batch[] = [];
  /** Batches not answered yet. */
  remaining = 0;
  /** A batch of this window failed as a whole: the import stops before committing it. */
  failed = false;
  readonly touched: string[] = [];
  private readonly rejects: Reject[] = [];

  constructor(win: Window) {
    this.lineCount = win.lines.length;
    this.last = win.last;
    this.digest = win.digest;
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
      if (spec.appliedNow && !spec.appliedNow(it.data, sentAt)) {
        this.replayed++;
      } else {
        this.created++;
        const supersedes = (it.data as { supersedes?: unknown } | undefined)?.supersedes;
        if (typeof supersedes === "string") this.superseded++;
      }
      const contextId = spec.contextOf?.(it.data);
      if (contextId) this.touched.push(contextId);
    }
  }

  /** Every reject of the window, in line order. */
  sortedRejects(): Reject[] {
    return this.rejects.sort((a, b) => a.line - b.line);
  }
}

/** Classifies a window's lines and cuts the sendable ones into batches. */
export async function prepareWindow(win: Window, kind: ImportKind, classifier: LineClassifier, maxLineBytes: number, dryRun: boolean): Promise<WindowWork> {
  const work = new WindowWork(win);
  const sendable: BatchLine[] = [];
  for (const line of win.lines) {
    if (isOverLong(line)) {
      work.reject(overLongReject(line, maxLineBytes));
      continue;
    }
    let c = classifier.classify(line.text);
    if (c instanceof Promise) c = await c;
    if ("skip" in c) work.skipped++;
    else if ("problem" in c) work.reject({ line: line.no, error: c.problem, input: line.text });
    else sendable.push({ no: line.no, text: line.text, item: c.item, order: classifier.orderKey(c.item) });
  }
  if (dryRun) work.valid = sendable.length;
  else work.batches = toBatches(kind, sendable);
  work.remaining = work.batches.length;
  return work;
}
