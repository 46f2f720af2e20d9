import { z } from "zod";
import { DELIVERY_STATUSES, WEBHOOK_EVENTS, WEBHOOK_STATUSES } from "../constants.js";
import { Id, Timestamp } from "./common.js";

export const WebhookEvent = z.enum(WEBHOOK_EVENTS);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

export const WebhookStatus = z.enum(WEBHOOK_STATUSES);
export type WebhookStatus = z.infer<typeof WebhookStatus>;

export const DeliveryStatus = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

/** Body of POST /webhooks. */
export const WebhookCreate = z.strictObject({
  url: z.url(),
  events: z.array(WebhookEvent).min(1),
  description: z.string().max(2000).nullish(),
});
export type WebhookCreate = z.infer<typeof WebhookCreate>;

/** A subscription; `secret` is present only in the 201 answer of its creation. */
export const Webhook = z.object({
  webhookId: Id,
  url: z.string(),
  events: z.array(WebhookEvent),
  description: z.string(),
  /** `disabled` by request or after days of failed attempts; its events are kept as failed deliveries. */
  status: WebhookStatus,
  /** Why it is disabled (null while enabled). */
  disabledReason: z.string().nullable(),
  disabledAt: Timestamp.nullable(),
  /** Since when every attempt failed (null after a success); the clock of automatic disabling. */
  failingSince: Timestamp.nullable(),
  createdAt: Timestamp,
  secret: z.string().optional(),
});
export type Webhook = z.infer<typeof Webhook>;

/** One event owed to a webhook, with the result of its latest attempt. */
export const WebhookDelivery = z.object({
  deliveryId: Id,
  webhookId: Id,
  /** The `webhook-id` header of every attempt, redeliveries included: receivers deduplicate on it. */
  messageId: z.string(),
  eventType: WebhookEvent,
  status: DeliveryStatus,
  /** Attempts since the delivery was created or last redelivered. */
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: Timestamp.nullable(),
  createdAt: Timestamp,
  /** When a 2xx settled it (null otherwise). */
  deliveredAt: Timestamp.nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** Body of POST /webhooks/{id}/recover: failed deliveries created from `since` (to `until`) are sent again. */
export const WebhookRecover = z.strictObject({
  since: z.iso.datetime({ offset: true }),
  until: z.iso.datetime({ offset: true }).nullish(),
});
export type WebhookRecover = z.infer<typeof WebhookRecover>;

/** Answer of POST /webhooks/{id}/recover. */
export const WebhookRecoverResult = z.object({
  webhookId: Id,
  since: Timestamp,
  until: Timestamp.nullable(),
  /** How many failed deliveries are pending again. */
  recovered: z.number().int(),
});
export type WebhookRecoverResult = z.infer<typeof WebhookRecoverResult>;

export { WEBHOOK_EVENTS };
