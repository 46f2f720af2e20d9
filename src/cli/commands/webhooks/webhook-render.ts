import type { Webhook, WebhookDelivery } from "../../../contract/schemas/index.js";
import type { Column, Output } from "../../output.js";

/** Columns of the webhook list. */
export function webhookColumns(): Column<Webhook>[] {
  return [
    { header: "WEBHOOK ID", get: (w) => w.webhookId },
    { header: "URL", get: (w) => w.url },
    { header: "EVENTS", get: (w) => w.events.join(",") },
    { header: "DESCRIPTION", get: (w) => w.description },
    { header: "CREATED", get: (w) => w.createdAt },
  ];
}

const deliveryStyle = (out: Output) => (text: string) =>
  text === "delivered" ? out.c.green(text) : text === "failed" ? out.c.red(text) : out.c.yellow(text);

/** Columns of a webhook's delivery list. */
export function deliveryColumns(out: Output): Column<WebhookDelivery>[] {
  return [
    { header: "DELIVERY ID", get: (d) => d.deliveryId },
    { header: "EVENT", get: (d) => d.eventType },
    { header: "STATUS", get: (d) => d.status, style: deliveryStyle(out) },
    { header: "ATTEMPTS", get: (d) => d.attempts },
    { header: "LAST", get: (d) => d.lastStatusCode ?? d.lastError ?? "" },
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
    ["events", w.events.join(", ")],
    ["description", w.description || null],
    ["createdAt", w.createdAt],
  ];
  if (w.secret) pairs.push(["secret", out.c.bold(w.secret)]);
  out.fields(pairs);
}
