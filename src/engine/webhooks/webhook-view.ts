import type { Webhook, WebhookDelivery, WebhookEvent } from "../../contract/schemas/index.js";
import type { DeliveryRow, WebhookRow } from "../store/webhook-repo.js";

/** The API shape of a webhook; the secret only when asked (the creation answer). */
export function toApiWebhook(row: WebhookRow, withSecret = false): Webhook {
  const out: Webhook = {
    webhookId: row.id,
    url: row.url,
    events: row.events as WebhookEvent[],
    description: row.description,
    createdAt: row.createdAt,
  };
  if (withSecret) out.secret = row.secret;
  return out;
}

/** The API shape of one delivery (the payload itself stays server-side). */
export function toApiDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    deliveryId: row.id,
    webhookId: row.webhookId,
    eventType: row.eventType as WebhookEvent,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    // Only pending rows have a next attempt; a settled row's column is null anyway.
    nextAttemptAt: row.status === "pending" && row.nextAttemptAt !== null ? new Date(row.nextAttemptAt).toISOString() : null,
    createdAt: row.createdAt,
    deliveredAt: row.deliveredAt,
  };
}
