import type { Webhook, WebhookDelivery } from "../../../contract/schemas/index.js";
import type { Column, Output } from "../../output/output.js";

const webhookStyle = (out: Output) => (text: string) => (text === "enabled" ? out.c.green(text) : out.c.red(text));

/** Columns of the webhook list. */
export function webhookColumns(out: Output): Column<Webhook>[] {
  return [
    { header: "WEBHOOK ID", get: (w) => w.webhookId },
    { header: "URL", get: (w) => w.url },
    { header: "STATUS", get: (w) => w.status, style: webhookStyle(out) },
    { header: "EVENTS", get: (w) => w.events.join(",") },
    { header: "DESCRIPTION", get: (w) => w.description },
    { header: "DISABLED BECAUSE", get: (w) => w.disabledReason ?? "" },
    { header: "CREATED", get: (w) => w.createdAt },
  ];
}

const deliveryStyle = (out: Output) => (text: string) =>
  text === "succeeded" ? out.c.green(text) : text === "failed" ? out.c.red(text) : out.c.yellow(text);

/** Columns of a webhook's delivery list. */
export function deliveryColumns(out: Output): Column<WebhookDelivery>[] {
  return [
    { header: "DELIVERY ID", get: (d) => d.deliveryId },
    { header: "EVENT", get: (d) => d.eventType },
    { header: "STATUS", get: (d) => d.status, style: deliveryStyle(out) },
    { header: "ATTEMPTS", get: (d) => d.attempts },
    { header: "LAST", get: (d) => d.lastError ?? d.lastStatusCode ?? "" },
    { header: "NEXT ATTEMPT", get: (d) => d.nextAttemptAt ?? "" },
    { header: "CREATED", get: (d) => d.createdAt },
  ];
}

/** Renders one webhook (with its secret, when this is the creation answer). */
export function renderWebhook(out: Output, w: Webhook): void {
  if (out.options.json) return out.json(w);
  const pairs: [string, unknown][] = [
    ["webhookId", w.webhookId],
    ["url", w.url],
    ["status", webhookStyle(out)(w.status)],
    ["events", w.events.join(", ")],
    ["description", w.description || null],
    ["createdAt", w.createdAt],
  ];
  if (w.status === "disabled") pairs.push(["disabledAt", w.disabledAt], ["disabledReason", w.disabledReason]);
  if (w.failingSince) pairs.push(["failingSince", w.failingSince]);
  if (w.secret) pairs.push(["secret", out.c.bold(w.secret)]);
  out.fields(pairs);
}

/** Renders one delivery (the answer of a redelivery). */
export function renderDelivery(out: Output, d: WebhookDelivery): void {
  if (out.options.json) return out.json(d);
  out.fields([
    ["deliveryId", d.deliveryId],
    ["webhookId", d.webhookId],
    ["webhook-id", d.messageId],
    ["event", d.eventType],
    ["status", deliveryStyle(out)(d.status)],
    ["attempts", d.attempts],
    ["lastStatusCode", d.lastStatusCode],
    ["lastError", d.lastError],
    ["nextAttemptAt", d.nextAttemptAt],
    ["createdAt", d.createdAt],
  ]);
}
