/**
 * Webhooks: subscriptions (the service methods), the durable outbox the engine writes
 * events into, and the dispatcher `ddsctl serve` runs to deliver them.
 */
export { createWebhookService } from "./webhook-service.js";
export { createWebhookOutbox, type WebhookOutbox, type WebhookOutboxOptions } from "./webhook-outbox.js";
export { withWebhookEvents } from "./webhook-pipeline.js";
export { createWebhookDispatcher, type TickResult, type WebhookDispatcher, type WebhookDispatcherOptions } from "./webhook-dispatcher.js";
export {
  retryDelayMs,
  maxAttempts,
  formatSchedule,
  DEFAULT_SCHEDULE,
  DEFAULT_SCHEDULE_TEXT,
  DEFAULT_RETRY_DELAYS_MS,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_DISABLE_AFTER_MS,
  type RetrySchedule,
} from "./webhook-schedule.js";
export { buildPayload, type WebhookPayload, type WebhookEventData, type ContextEventData } from "./webhook-payload.js";
export { newWebhookSecret } from "./webhook-secret.js";
