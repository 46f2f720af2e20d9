import { randomBytes } from "node:crypto";

/**
 * A new signing secret in the Standard Webhooks format: `whsec_` + base64 of 24 random
 * bytes (192 bits), which `new Webhook(secret)` of the `standardwebhooks` package reads.
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}
