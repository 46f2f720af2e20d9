import type { PipelineOptions } from "../pipeline/worker.js";
import type { Store } from "../store/db.js";
import { createWebhookOutbox } from "./webhook-outbox.js";

/**
 * Pipeline options whose `onPass` writes `evaluation.changed` and `context.resolved` to
 * the outbox (inside the pass's commit transaction), then calls the caller's own `onPass`.
 * Every pipeline that commits passes must be built with it, or its passes emit nothing:
 * the local engine's, and the worker `ddsctl serve` runs.
 */
export function withWebhookEvents(store: Store, options: PipelineOptions = {}): PipelineOptions {
  const outbox = createWebhookOutbox(store);
  const listener = options.onPass;
  return {
    ...options,
    onPass: (event) => {
      outbox.passCommitted(event);
      listener?.(event);
    },
  };
}
