import { WEBHOOK_EVENTS } from "../../../contract/constants.js";
import type { WebhookCreate } from "../../../contract/schemas/index.js";
import { errors } from "../../../contract/errors.js";
import { bodyFrom } from "../../document-input.js";
import { defineCommand } from "../../core/define-command.js";
import { fileArg, outputArgs } from "../../core/shared-args.js";
import { renderWebhook } from "./webhook-render.js";

/** `ddsctl webhooks create`. */
export default defineCommand({
  command: "webhooks create",
  description: "subscribe a URL to events; prints the signing secret once",
  examples: [
    "ddsctl webhooks create --url https://example.com/hooks/dds --event context.resolved --event evaluation.changed",
    `echo '{"url":"https://example.com/hooks","events":["context.stale"]}' | ddsctl webhooks create -f - --json`,
  ],
  args: {
    ...fileArg("the POST /webhooks body"),
    url: { type: "string", description: "http(s) endpoint that receives the signed POSTs" },
    // Repeatable, and a comma-separated list counts as several (`--event a,b`).
    event: { type: "strings", placeholder: "type", commaSeparated: true, description: `event to receive (repeatable): ${WEBHOOK_EVENTS.join(", ")}` },
    description: { type: "string", placeholder: "text", description: "what the subscription is for" },
    ...outputArgs,
  },
  writes: true,
  async handler(args, ctx) {
    if (!args.file && (args.url === undefined || args.event.length === 0)) {
      throw errors.usage("missing --url or --event (or give the body with -f <file|->)");
    }
    const events = args.event.length > 0 ? args.event : undefined;
    const body = await bodyFrom(ctx.io, args.file, { url: args.url, events, description: args.description });
    // The engine validates the body (400 on a bad shape); the cast only names its type.
    const webhook = await (await ctx.service()).createWebhook(body as WebhookCreate);
    renderWebhook(ctx.out, webhook);
    if (webhook.secret) ctx.out.warn("store the secret now: it is shown only once and verifies every delivery's webhook-signature");
  },
});
