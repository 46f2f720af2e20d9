/**
 * Webhooks: subscriptions (the service methods), the durable outbox the engine writes
 * events into, and the dispatcher `ddsctl serve` runs to deliver them.
 */
export { createWebhookService } from "./webhook-service.js";
export { createWebhookOutbox, type WebhookOutbox, type WebhookOutboxOptions } from "./webhook-outbox.js";
export { withWebhookEvents } from "./webhook-pipeline.js";
export { createWebhookDispatcher, type TickResult, type WebhookDispatcher, type WebhookDispatcherOptions } from "./webhook-dispatcher.js";
export { retryDelayMs, DEFAULT_BACKOFF, type BackoffOptions } from "./webhook-backoff.js";
export { buildPayload, type WebhookPayload, type WebhookEventData, type ContextEventData } from "./webhook-payload.js";
export { newWebhookSecret } from "./webhook-secret.js";
