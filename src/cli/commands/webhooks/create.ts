import { WEBHOOK_EVENTS } from "../../../contract/constants.js";
import type { WebhookCreate } from "../../../contract/schemas/index.js";
import { errors } from "../../../contract/errors.js";
import { bodyFrom } from "../../body.js";
import { defineCommand } from "../../command.js";
import { renderWebhook } from "./webhook-render.js";

// Repeatable, and a comma-separated list counts as several (`--event a,b`).
const collect = (v: string, prev: string[] = []) => [...prev, ...v.split(",").map((s) => s.trim()).filter(Boolean)];

/** `ddsctl webhooks create`. */
export default defineCommand({
  path: ["webhooks", "create"],
  description: "subscribe a URL to events; prints the signing secret once",
  examples: [
    "ddsctl webhooks create --url https://example.com/hooks/dds --event context.resolved --event evaluation.changed",
    `echo '{"url":"https://example.com/hooks","events":["context.stale"]}' | ddsctl webhooks create -f - --json`,
  ],
  configure: (cmd) =>
    cmd
      .option("-f, --file <path|->", "the POST /webhooks body as JSON (- reads stdin)")
      .option("--url <url>", "http(s) endpoint that receives the signed POSTs")
      .option("--event <type>", `event to receive (repeatable): ${WEBHOOK_EVENTS.join(", ")}`, collect)
      .option("--description <text>", "what the subscription is for"),
  async run(ctx, _args, flags) {
    if (!flags.file && (flags.url === undefined || flags.event === undefined)) {
      throw errors.usage("missing --url or --event (or give the body with -f <file|->)");
    }
    const body = await bodyFrom(flags.file as string | undefined, { url: flags.url, events: flags.event, description: flags.description });
    // The engine validates the body (400 on a bad shape); the cast only names its type.
    const webhook = await (await ctx.service()).createWebhook(body as WebhookCreate);
    renderWebhook(ctx.out, webhook);
    if (webhook.secret) ctx.out.warn("store the secret now: it is shown only once and verifies every delivery's webhook-signature");
  },
});
