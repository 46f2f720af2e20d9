import { createReadStream } from "node:fs";
import { performance } from "node:perf_hooks";
import { DdsError, errors } from "../../../contract/errors.js";
import type { BulkResponse } from "../../../contract/schemas/index.js";
import type { DdsService } from "../../../contract/service.js";
import type { Batch } from "../../ndjson/batches.js";
import { Dispatcher } from "../../ndjson/dispatcher.js";
import { splitLines } from "../../ndjson/line-splitter.js";
import type { Reject } from "../../ndjson/rejects.js";
import { windows } from "../../ndjson/windows.js";
import { KINDS, type ImportKind } from "./import-kinds.js";
import { ImportLedger, type ImportCounts, type ImportProgress } from "./import-ledger.js";
import { setUpImport, type ImportOptions, type ImportStart } from "./import-setup.js";
import { WindowWork, prepareWindow } from "./window-work.js";
import { GroupedCommits, writeGroupsOf } from "../../../engine/write-groups.js";
import { collectorAfterGroups, holdHeapSmall } from "./heap-budget.js";

export type { ImportCounts, ImportProgress };

/** What an import did. */
export interface ImportResult {
  counts: ImportCounts;
  seconds: number;
  /** Every line was read and committed. */
  complete: boolean;
  /** Ctrl-C stopped it (after committing and checkpointing the batches in flight). */
  interrupted: boolean;
  /** Set when --max-errors stopped the import. */
  stoppedAt?: number;
  /** A request that failed as a whole, and the first line it held. */
  failure?: { error: unknown; line: number; doneThrough: number };
  /** Contexts written to; undefined when unknown (deletes, resumed imports): drain all. */
  touched: Set<string> | undefined;
  rejectsPath: string | undefined;
  /** The first few rejects, to show on the terminal. */
  firstRejects: Reject[];
  /** The first few lines a resume found stored before and edited since. */
  firstChanged: number[];
  /** Lines read past the checkpoint, and how long since the first of them: the rate's terms. */
  sent: { lines: number; seconds: number };
}

/**
 * How long an import's write group stays open: batches commit together this often (one
 * transaction per batch cost a fifth of the import; groups of 1 s resolve a record-heavy
 * file faster than groups of 200 ms, whose passes ran five times as often), while another
 * writer on the same database waits at most about this long.
 */
const GROUP_MS = 1000;

/**
 * The most lines a write group takes before it commits, however fast they come: what a
 * group holds for its pass grows with its lines, so on a fast machine a 1 s group of a
 * record-heavy file (25,000 new records) peaked 25 MiB above one of 10,000 lines, at the
 * same speed (docs/imports.md, "Memory").
 */
const GROUP_LINES = 10_000;

/** How long a batch waits for its own earlier attempt (still running on the server) before giving up. */
const IN_PROGRESS_RETRIES = 40;

async function send(service: DdsService, kind: ImportKind, batch: Batch): Promise<{ res: BulkResponse; sentAt: string }> {
  const items = batch.lines.map((l) => l.item);
  for (let attempt = 0; ; attempt++) {
    const sentAt = new Date().toISOString();
    try {
      return { res: await KINDS[kind].send(service, items, { idempotencyKey: batch.key }), sentAt };
    } catch (err) {
      // A killed earlier run's request may still be running on the server under this key.
      if (!(err instanceof DdsError && err.code === "idempotency_in_progress") || attempt >= IN_PROGRESS_RETRIES) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * Streams the input through the import: windows of 100 lines are classified, sent in
 * batches (up to `concurrency` in flight, file order kept per context), and committed in
 * order: their rejects appended, then the checkpoint moved past them.
 */
export async function runImport(service: DdsService, opts: ImportOptions, showProgress?: (totalBytes: number | undefined) => ImportProgress | undefined): Promise<ImportResult> {
  const started = performance.now();
  const start = await setUpImport(service, opts);
  try {
    return await runFrom(service, opts, start, started, showProgress);
  } finally {
    // The plan holds the ledger it resumed; a fresh ledger is the run's own.
    if (start.plan) start.plan.close();
    else start.lineLedger?.close();
  }
}

async function runFrom(service: DdsService, opts: ImportOptions, start: ImportStart, started: number, showProgress?: (totalBytes: number | undefined) => ImportProgress | undefined): Promise<ImportResult> {
  const spec = KINDS[opts.kind];
  const { rejects, classifier, skipUntil, expected, plan } = start;
  const windowContext = { kind: opts.kind, classifier, maxLineBytes: opts.maxLineBytes, dryRun: opts.dryRun, plan, prior: start.prior?.ledger, track: start.lineLedger !== undefined, ordered: opts.concurrency > 1 };
  /** The last line read: with a plan, the input must still reach its checkpoint. */
  let lastRead = 0;
  const progress = showProgress?.(start.size);
  const ledger = new ImportLedger(opts, start, rejects, progress, spec.contextOf !== undefined);
  ledger.anchor = start.prior?.anchor;
  // Locally, batches commit in groups; the checkpoint follows each group's commit.
  const groups = new GroupedCommits(opts.dryRun ? undefined : writeGroupsOf(service), GROUP_MS, GROUP_LINES);
  const grouped = groups.enabled;
  ledger.deferred = grouped;
  // A group opens with the first batch after the last one closed, so an idle input (a
  // slow pipe) holds no write lock and leaves nothing uncommitted.
  const openGroup = () => groups.begin();
  holdHeapSmall();
  const collect = collectorAfterGroups();
  const afterCommit = () => {
    // With no group open every batch so far is committed (a window of rejects only sends none).
    ledger.durable();
    collect();
  };
  /** A commit still running (PostgreSQL's are asynchronous): no batch is sent until it ends. */
  let committing: Promise<void> | undefined;
  /** Set once a group's commit failed: what it held is lost, so the checkpoint never moves again. */
  let lost = false;
  const commitGroup = () => {
    if (!grouped || committing || lost) return;
    const closing = groups.take();
    // A failed commit throws (or rejects) before the checkpoint moves: the lines stay to be sent again.
    let done: void | Promise<void> | undefined;
    try {
      done = closing?.commit();
    } catch (error) {
      lost = true;
      throw error;
    }
    if (!done) return afterCommit();
    committing = done.then(afterCommit, (error: unknown) => {
      lost = true;
      failure ??= { error, line: ledger.durableThrough + 1, doneThrough: 0 };
    });
    void committing.finally(() => (committing = undefined));
  };
  /** Waits for the commit in flight, if any (and any that follows it before returning). */
  const committed = async () => {
    while (committing) await committing;
  };
  /** Engine calls running: a group commits only between calls, never cutting one in two. */
  let sending = 0;
  const due = () => sending === 0 && groups.isDue();
  // While the input keeps the reader waiting, the open group commits on time all the same.
  const idle = grouped
    ? setInterval(() => {
        try {
          if (due()) commitGroup();
        } catch (error) {
          failure ??= { error, line: ledger.durableThrough + 1, doneThrough: 0 };
        }
      }, GROUP_MS)
    : undefined;
  const queue: WindowWork[] = [];
  const dispatcher = new Dispatcher(opts.concurrency);
  let failure: ImportResult["failure"];
  // Windows finish out of order when several are in flight; they commit in file order.
  const flush = () => {
    while (queue.length > 0 && queue[0].remaining === 0 && !queue[0].failed) ledger.commit(queue.shift()!);
    if (due()) commitGroup();
  };
  const halted = () => failure !== undefined || ledger.overErrorLimit || opts.signal?.aborted === true;

  const source = opts.input === "-" ? opts.stdin : createReadStream(opts.input, { highWaterMark: 1024 * 1024 });
  // A pipe may keep the reader waiting for its next line: Ctrl-C stops the waiting too.
  const stopReading = () => (source as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  opts.signal?.addEventListener("abort", stopReading, { once: true });
  let reachedEnd = true;
  try {
    for await (const win of windows(splitLines(source, { maxLineBytes: opts.maxLineBytes }))) {
      lastRead = win.last;
      // Without a plan the lines the checkpoint covers must be those it recorded: skipped whole.
      if (!plan && win.first <= skipUntil && win.last > skipUntil) {
        throw errors.usage(`checkpoint ${opts.checkpoint} does not end on a batch boundary; delete it to import from the start`);
      }
      if (!plan && win.last <= skipUntil) {
        if (win.last === skipUntil && (win.digest.sha256 !== expected?.sha256 || win.digest.bytes !== expected.bytes)) {
          throw errors.usage(`the input's first ${skipUntil} lines differ from those the checkpoint ${opts.checkpoint} recorded; delete it (or drop --resume) to import from the start`);
        }
        ledger.skip(win.lines.length, win.digest.bytes);
        continue;
      }
      // Later windows may finish while an earlier one is still in flight; they wait in the
      // queue to commit in order. Bounding the queue bounds memory behind a slow request.
      while (queue.length >= opts.concurrency * 2 && !halted()) await dispatcher.settled();
      const work = await prepareWindow(win, windowContext);
      if (work.lineCount > work.resumeSkipped + work.changed.length + work.storedBefore) ledger.sendingSince ??= performance.now();
      queue.push(work);
      for (const batch of work.batches) {
        await dispatcher.slot(batch.orderKeys);
        // The checkpoint follows a commit only while nothing more is sent: wait for it.
        await committed();
        // Waiting for the slot let earlier batches finish: one may have stopped the import.
        if (halted()) break;
        openGroup();
        groups.add(batch.lines.length);
        // Recording and committing happen inside the task, so once `slot` lets the next
        // batch go, everything before it is counted.
        void dispatcher.run(batch.orderKeys, async () => {
          try {
            sending++;
            let sent: Awaited<ReturnType<typeof send>>;
            try {
              sent = await send(service, opts.kind, batch);
            } finally {
              sending--;
            }
            work.record(spec, batch, sent.res, sent.sentAt);
          } catch (error) {
            work.failed = true;
            failure ??= { error, line: batch.lines[0].no, doneThrough: 0 };
          } finally {
            work.remaining--;
            try {
              flush();
            } catch (error) {
              // Writing the rejects or the checkpoint failed (a full disk): stop here.
              failure ??= { error, line: batch.lines[0].no, doneThrough: 0 };
            }
          }
        });
      }
      flush();
      if (halted()) {
        reachedEnd = false;
        break;
      }
    }
    await dispatcher.idle();
    flush();
  } catch (err) {
    // A stream destroyed by Ctrl-C ends the reading early; anything else is a real failure.
    if (!opts.signal?.aborted) throw err;
    reachedEnd = false;
    await dispatcher.idle();
    flush();
  } finally {
    opts.signal?.removeEventListener("abort", stopReading);
    // What the service accepted is kept even when the import stops on an error: the
    // checkpoint then records it, or a rerun's keys replay it. A call still running (the
    // import stopped on a usage error) finishes first: a group commits between calls.
    clearInterval(idle);
    await dispatcher.idle();
    await committed();
    commitGroup();
    await committed();
    if (source !== opts.stdin) (source as NodeJS.ReadableStream & { destroy(): void }).destroy();
    rejects.close();
    progress?.stop();
  }
  const interrupted = opts.signal?.aborted === true;
  if (plan && reachedEnd && !failure && !interrupted && lastRead < plan.through) {
    failure = {
      error: errors.usage(`the input now ends at line ${lastRead}, before line ${plan.through} where checkpoint ${opts.checkpoint} ends: lines were removed; delete the checkpoint (or drop --resume) to import from the start`),
      line: lastRead + 1,
      doneThrough: 0,
    };
  }
  const complete = reachedEnd && !failure && !interrupted;
  ledger.finish(complete, !lost);
  if (failure) failure.doneThrough = ledger.durableThrough;
  return {
    counts: ledger.counts,
    seconds: (performance.now() - started) / 1000,
    complete,
    interrupted,
    stoppedAt: ledger.overErrorLimit && !reachedEnd ? ledger.lastCommitted : undefined,
    failure,
    touched: ledger.touched,
    rejectsPath: start.rejectsPath ?? rejects.path,
    firstRejects: ledger.firstRejects,
    firstChanged: ledger.firstChanged,
    sent: { lines: ledger.sent, seconds: ledger.sendingSince === undefined ? 0 : (performance.now() - ledger.sendingSince) / 1000 },
  };
}
