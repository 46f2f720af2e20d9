import type { PipelineOptions } from "../pipeline/worker.js";
import { createWebhookOutbox } from "./webhook-outbox.js";

/**
 * Pipeline options whose `onPass` writes `evaluation.changed` and `context.resolved` to
 * the outbox (inside the pass's commit transaction), then calls the caller's own `onPass`.
 * Every pipeline that commits passes must be built with it, or its passes emit nothing:
 * the local engine's, and the worker `ddsctl serve` runs.
 */
export function withWebhookEvents(options: PipelineOptions = {}): PipelineOptions {
  const outbox = createWebhookOutbox();
  const listener = options.onPass;
  return {
    ...options,
    onPass: async (tx, event) => {
      await outbox.passCommitted(tx, event);
      await listener?.(tx, event);
    },
  };
}
