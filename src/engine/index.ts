/**
 * The engine's entry for the HTTP server and the studio: the application object and the
 * few types and helpers they build on. They import nothing else of the engine (the layering
 * test holds them to it), so what a listener may touch is listed here, in one place.
 */
export { appOver, openApp, type Actor, type App, type Backlog, type OpenAppOptions } from "./app.js";
export type { Activity, AppEnv, EventLevel, EventLog } from "./app-types.js";
export { type Background, type BackgroundOptions } from "./app-background.js";
export { reportFailure } from "./report-failure.js";
export { hasScope, type Authenticator, type Principal } from "./auth/index.js";
export type { LocalEngine } from "./local-engine.js";
export type { WorkerOptions } from "./pipeline/pipeline-runner.js";
export type { PassOutcome, PipelineObserver } from "./pipeline/worker.js";
export type { SecretBox } from "./secrets/secret-box.js";
export { asDatabaseUnavailable } from "./store/db-errors.js";
export { IDEMPOTENCY_TTL_MS, type IdempotencyRepo, type MarkOwner, type StoredResponse } from "./store/idempotency-repo.js";
export { isPostgresUrl } from "./store/location.js";
export type { Claim } from "./store/pipeline-repo.js";
export { StampedCache } from "./store/stamped-cache.js";
export type { Store } from "./store/store.js";
export { DEFAULT_DISABLE_AFTER_MS, DEFAULT_SCHEDULE_TEXT, DEFAULT_TIMEOUT_MS, type WebhookDispatcherOptions } from "./webhooks/index.js";
export type { AttemptOutcome } from "./webhooks/webhook-dispatcher.js";
export { createRateBudgets, type LeaseAsk, type LeaseGrant } from "./store/rate-budget-repo.js";
