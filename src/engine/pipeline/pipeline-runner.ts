import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { isDdsError } from "../../contract/errors.js";
import type { Activity, EventLog } from "../app-types.js";
import type { Store } from "../store/store.js";
import { withWebhookEvents } from "../webhooks/webhook-pipeline.js";
import { createPipeline, type PipelineOptions } from "./worker.js";

/** Timing of the in-process pipeline worker. */
export interface WorkerOptions {
  /**
   * SQLite: the poll interval when there is nothing to do (default 50 ms), since another
   * process may write the file. PostgreSQL: unused; evidence anywhere wakes the worker by
   * notification, and an idle worker otherwise sleeps until the next lease runs out.
   */
  idleMs?: number;
  /**
   * Quiet time after the last write request before a pass starts (default 50 ms), so a
   * burst of evidence is resolved once rather than after every request.
   */
  settleMs?: number;
  /** Longest a pass is put off by a continuous stream of writes (default 1 s). */
  maxDeferMs?: number;
  /** Pause after a failed pass, so a poisoned context cannot spin the loop (default 1 s). */
  errorBackoffMs?: number;
  /** PostgreSQL: longest an idle worker sleeps without a notification (default 30 s), in case one was lost. */
  safetyMs?: number;
  /**
   * Passes in flight: how many stale contexts the worker claims in one statement, reads at
   * once, and commits in one transaction. Default: on PostgreSQL the pool's size (a batch
   * holds one connection at a time, and costs the round trips of a single pass); on
   * SQLite 1 (one connection, no round trips to save).
   */
  concurrency?: number;
  /** Passed to the pipeline (lease, onPass for the webhook outbox). */
  pipeline?: PipelineOptions;
}

/**
 * The share of the time passes may take while write requests keep arriving, for the whole
 * fleet: each of n workers on one database takes a nth of it (see fleetSize). A worker per
 * node each taking a tenth passed a context that every request makes stale again n times as
 * often as one node did, each pass reading all its records for the rules, however few
 * changed: two nodes held to a third of a core each used a third more CPU for the same feed.
 */
const BUSY_SHARE = 0.1;
/** How often a worker pacing its passes under load counts the fleet's workers again. */
const FLEET_COUNT_MS = 5000;
/** Quiet this long (no write here or on any node) ends a pause of BUSY_SHARE: the load is over. */
const LOAD_ENDED_MS = 250;

/**
 * How long a worker rests after a pass of `tookMs` made while writes keep arriving, when
 * `workers` workers share the database: passes then take BUSY_SHARE of the fleet's time,
 * each worker's the nth of it (at least 1 ms).
 */
export function pauseAfterBusyPass(tookMs: number, workers: number): number {
  const share = BUSY_SHARE / Math.max(1, workers);
  return Math.max(1, (tookMs * (1 - share)) / share);
}

/** A running worker. */
export interface RunningWorker {
  /** Stops after the current pass, then gives back any claim this worker still holds. */
  stop(): Promise<void>;
}

/**
 * While contexts are being computed, how often an idle worker looks for claims whose holder
 * died (PostgreSQL): the bound on how late a dead node's work is taken over.
 */
const HOLDER_CHECK_MS = 1000;

/** How many leases a batch of passes may run before the server's worker takes it as stuck. */
const STUCK_AFTER_LEASES = 6;

/**
 * Runs the resolution pipeline in the background (beside the HTTP server, or the studio):
 * one pipeline over the whole store (every workspace), a pass at a time while work exists,
 * yielding to the event loop between passes so requests keep flowing.
 */
export function startWorker(store: Store, activity: Activity, options: WorkerOptions = {}, logger?: EventLog): RunningWorker {
  const idleMs = options.idleMs ?? 50;
  const settleMs = options.settleMs ?? 50;
  const maxDeferMs = options.maxDeferMs ?? 1000;
  const errorBackoffMs = options.errorBackoffMs ?? 1000;
  const safetyMs = options.safetyMs ?? 30_000;
  // A pool (PostgreSQL) takes as many passes at once as it has connections; one connection (SQLite) takes one.
  const concurrency = Math.max(1, options.concurrency ?? store.poolStats?.().max ?? 1);
  // Passes write their webhook events (context.resolved, evaluation.changed) to the outbox
  // in their own transaction, exactly as the local engine's pipeline does.
  // A batch running six leases is taken as stuck (see PipelineOptions.maxPassMs).
  const lease = options.pipeline?.leaseMs ?? 30_000;
  const pipeline = createPipeline(store, withWebhookEvents({ maxPassMs: STUCK_AFTER_LEASES * lease, ...options.pipeline }));
  let stopping = false;
  let woken = false;
  let wake: (() => void) | undefined;
  /** Sleeps `ms`; an idle sleep (`wakeable`) ends early when work is announced, or on stop. */
  const sleep = (ms: number, wakeable = false) =>
    new Promise<void>((resolve) => {
      // A stop that came while a pass or a query ran must not wait out the next sleep.
      if (stopping) return resolve();
      if (wakeable && woken) {
        woken = false;
        return resolve();
      }
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = wakeable ? done : () => (stopping ? done() : undefined);
    });
  // Work announced here or on another node ends an idle sleep at once, and counts as
  // write activity: evidence arriving at any node settles before a pass, as it does here.
  const unsubscribe = store.on("work", () => {
    activity.lastWriteAt = Math.max(activity.lastWriteAt, Date.now());
    woken = true;
    wake?.();
  });
  // While the database is away every pass fails alike; the store reports the outage once.
  const logError = (err: unknown) => {
    if (!(isDdsError(err) && err.code === "database_unavailable")) logger?.event("pipeline_error", { error: (err as Error).message }, "error");
  };

  /**
   * How long an idle worker sleeps: SQLite polls; PostgreSQL waits for a notification or the
   * next lease end, and while some context is being computed, looks again every
   * HOLDER_CHECK_MS: a node that died says nothing, its claims come free with its session.
   */
  const idleFor = async (): Promise<number> => {
    if (!store.hearsOtherProcesses) return idleMs;
    const next = await pipeline.repo.nextLeaseExpiry();
    if (next === undefined) return safetyMs;
    const check = store.sql.dialect.claimHolderGone ? HOLDER_CHECK_MS : Infinity;
    return Math.max(1, Math.min(safetyMs, check, next - Date.now() + 1));
  };

  /**
   * The pause after a pass made while writes keep arriving (see BUSY_SHARE), cut short once
   * they have stopped (LOAD_ENDED_MS of quiet, anywhere): a pass that took a second on a node
   * held to a fraction of a core would otherwise keep it idle for nine more after the load
   * ended, with its backlog waiting.
   */
  const yieldWhileBusy = async (ms: number) => {
    const end = performance.now() + ms;
    const quiet = Math.max(settleMs, LOAD_ENDED_MS);
    for (let left = ms; left > 0 && !stopping && Date.now() - activity.lastWriteAt < quiet; left = end - performance.now()) {
      await sleep(Math.max(1, Math.min(left, quiet)));
    }
  };

  /** Workers holding a claim mark on the database (PostgreSQL; SQLite: 1), counted at most every FLEET_COUNT_MS. */
  let fleet = { workers: 1, countedAt: Number.NEGATIVE_INFINITY };
  const fleetSize = async (): Promise<number> => {
    if (performance.now() - fleet.countedAt < FLEET_COUNT_MS) return fleet.workers;
    // A failed count keeps the last one: pacing is no reason to stop passing.
    const workers = await pipeline.repo.liveWorkers().catch(() => fleet.workers);
    fleet = { workers, countedAt: performance.now() };
    return workers;
  };

  const loop = async () => {
    let deferringSince: number | undefined;
    while (!stopping) {
      const now = Date.now();
      const quietFor = now - activity.lastWriteAt;
      if (quietFor < settleMs) {
        deferringSince ??= now;
        if (now - deferringSince < maxDeferMs) {
          await sleep(Math.max(1, Math.min(settleMs - quietFor, idleMs)));
          continue;
        }
      }
      // Past maxDeferMs under a continuous stream of writes, passes take turns with the
      // requests instead of running back to back: at most BUSY_SHARE of the time, so a long
      // import is not slowed by half while its contexts still resolve as it goes.
      const busy = quietFor < settleMs;
      const passStarted = performance.now();
      let worked: boolean;
      try {
        woken = false;
        worked = (await pipeline.stepMany(concurrency)) > 0;
      } catch (err) {
        logError(err);
        await sleep(errorBackoffMs);
        continue;
      }
      if (worked && busy) {
        const took = performance.now() - passStarted;
        await yieldWhileBusy(pauseAfterBusyPass(took, await fleetSize()));
      } else if (worked) {
        await yieldToEventLoop();
      } else {
        deferringSince = undefined;
        try {
          await sleep(await idleFor(), true);
        } catch (err) {
          logError(err);
          await sleep(errorBackoffMs);
        }
      }
    }
  };
  const done = loop();
  return {
    async stop() {
      stopping = true;
      unsubscribe();
      wake?.();
      await done;
      // Nothing should be left (a pass ends before the loop does), but a claim must never
      // outlive the worker that holds it: other nodes take it over at once.
      await pipeline.releaseAll().catch(logError);
    },
  };
}
