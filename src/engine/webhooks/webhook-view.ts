import type { DeliveryStatus, Webhook, WebhookDelivery, WebhookEvent } from "../../contract/schemas/index.js";
import type { DeliveryRow, StoredDeliveryStatus, WebhookRow } from "../store/webhook-repo.js";

/** The API shape of a webhook; the secret only when asked (the creation answer). */
export function toApiWebhook(row: WebhookRow, withSecret = false): Webhook {
  const out: Webhook = {
    webhookId: row.id,
    url: row.url,
    events: row.events as WebhookEvent[],
    description: row.description,
    status: row.disabledAt === null ? "enabled" : "disabled",
    disabledReason: row.disabledReason,
    disabledAt: row.disabledAt,
    failingSince: row.failingSince === null ? null : new Date(row.failingSince).toISOString(),
    createdAt: row.createdAt,
  };
  if (withSecret) out.secret = row.secret;
  return out;
}

/** The stored status in the API's words (`delivered` is stored for `succeeded`). */
const API_STATUS: Record<StoredDeliveryStatus, DeliveryStatus> = { pending: "pending", delivered: "succeeded", failed: "failed" };

/** The API shape of one delivery (the payload itself stays server-side). */
export function toApiDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    deliveryId: row.id,
    webhookId: row.webhookId,
    messageId: row.messageId,
    eventType: row.eventType as WebhookEvent,
    status: API_STATUS[row.status],
    attempts: Number(row.attempts),
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    // Only pending rows have a next attempt; a settled row's column is null anyway.
    nextAttemptAt: row.status === "pending" && row.nextAttemptAt !== null ? new Date(Number(row.nextAttemptAt)).toISOString() : null,
    createdAt: row.createdAt,
    deliveredAt: row.deliveredAt,
  };
}
