import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Store } from "../engine/store/db.js";
import { createPipeline, type PipelineOptions } from "../engine/pipeline/worker.js";
import { withWebhookEvents } from "../engine/webhooks/index.js";
import type { Activity, LogFn } from "./types.js";

/** Timing of the in-process pipeline worker. */
export interface WorkerOptions {
  /** Poll interval when there is nothing to do (default 50 ms). */
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
  /** Passed to the pipeline (lease, onPass for the webhook outbox). */
  pipeline?: PipelineOptions;
}

/** The share of the time passes may take while write requests keep arriving. */
const BUSY_SHARE = 0.1;

/** A running worker. */
export interface RunningWorker {
  /** Stops after the current pass (passes are synchronous, so at most one). */
  stop(): Promise<void>;
}

/**
 * Runs the resolution pipeline beside the HTTP server: one pipeline over the whole store
 * (every workspace), a pass at a time while work exists, yielding to the event loop
 * between passes so requests keep flowing.
 */
export function startWorker(store: Store, activity: Activity, options: WorkerOptions = {}, log?: LogFn): RunningWorker {
  const idleMs = options.idleMs ?? 50;
  const settleMs = options.settleMs ?? 50;
  const maxDeferMs = options.maxDeferMs ?? 1000;
  const errorBackoffMs = options.errorBackoffMs ?? 1000;
  // Passes write their webhook events (context.resolved, evaluation.changed) to the outbox
  // in their own transaction, exactly as the local engine's pipeline does.
  const pipeline = createPipeline(store, withWebhookEvents(store, options.pipeline));
  let stopping = false;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

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
        worked = pipeline.step();
      } catch (err) {
        log?.(JSON.stringify({ time: new Date().toISOString(), event: "pipeline_error", error: (err as Error).message }));
        await sleep(errorBackoffMs);
        continue;
      }
      if (worked && busy) {
        await sleep(Math.max(1, ((performance.now() - passStarted) * (1 - BUSY_SHARE)) / BUSY_SHARE));
      } else if (worked) {
        await yieldToEventLoop();
      } else {
        deferringSince = undefined;
        await sleep(idleMs);
      }
    }
  };
  const done = loop();
  return {
    async stop() {
      stopping = true;
      wake?.();
      await done;
    },
  };
}
