import type { WebhookEvent } from "../../contract/schemas/index.js";

/** What every event's `data` carries: the context it is about and its workspace. */
export interface ContextEventData {
  contextId: string;
  workspace: string;
}

/** `data` of each event type, as receivers see it. */
export interface WebhookEventData {
  /** A resolved context turned stale (new evidence, or a model/rule change). */
  "context.stale": ContextEventData & { freshness: "stale" };
  /** A pipeline pass committed and the context converged. */
  "context.resolved": ContextEventData & { freshness: "resolved"; resolvedAt: string | null };
  /** A lifecycle move (`active` → `completed`, `completed` → `active`, → `archived`). */
  "context.status_changed": ContextEventData & { from: string; to: string };
  /** A rule's outcome on a context flipped in a committed pass. */
  "evaluation.changed": ContextEventData & {
    evaluationId: string | null;
    ruleId: string;
    ruleName: string | null;
    outcome: boolean;
    previousOutcome: boolean;
  };
}

/** The JSON body POSTed to a webhook: `{type, timestamp, data}`. */
export interface WebhookPayload<T extends WebhookEvent = WebhookEvent> {
  type: T;
  /** When the event happened (ISO 8601 UTC); stable across retries. */
  timestamp: string;
  data: WebhookEventData[T];
}

/** Builds an event payload. Pure, so tests and docs can show exact bodies. */
export function buildPayload<T extends WebhookEvent>(type: T, data: WebhookEventData[T], timestamp: string): WebhookPayload<T> {
  return { type, timestamp, data };
}
