import { Webhook } from "standardwebhooks";

/**
 * The Standard Webhooks headers of one attempt. The timestamp is the attempt's (receivers
 * reject signatures older than their tolerance, so every retry is signed afresh); the id
 * stays the message's, so receivers can deduplicate retries.
 */
export function signedHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": "ddsctl-webhooks/1",
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(messageId, at, body),
  };
}
