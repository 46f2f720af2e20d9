import { z } from "zod";
import { WEBHOOK_EVENTS } from "../constants.js";
import { Id, Timestamp } from "./common.js";

export const WebhookEvent = z.enum(WEBHOOK_EVENTS);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

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
  createdAt: Timestamp,
  secret: z.string().optional(),
});
export type Webhook = z.infer<typeof Webhook>;

/** One delivery attempt record of an event to a webhook. */
export const WebhookDelivery = z.object({
  deliveryId: Id,
  webhookId: Id,
  eventType: WebhookEvent,
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: Timestamp.nullable(),
  createdAt: Timestamp,
  deliveredAt: Timestamp.nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export { WEBHOOK_EVENTS };
