import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { pointInTime } from "../../common/point-in-time.js";

/** `ddsctl webhooks recover <webhook> --since 2h`. */
export default defineCommand({
  command: "webhooks recover",
  description: "send every failed delivery of a webhook created since a time again (same webhook-ids)",
  examples: ["ddsctl webhooks recover https://example.com/hooks/dds --since 2h", "ddsctl webhooks recover 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --since 2026-01-31T08:00:00Z --until 2026-01-31T12:00:00Z --json"],
  args: {
    webhook: refs.webhook,
    since: { type: "string", required: true, placeholder: "when", description: "a duration ago (2h, 3d) or an ISO 8601 time: deliveries created from then" },
    until: { type: "string", placeholder: "when", description: "and before this time (default: now)" },
    ...outputArgs,
  },
  writes: true,
  async handler(args, ctx) {
    const body = { since: pointInTime(args.since, "--since"), until: args.until === undefined ? undefined : pointInTime(args.until, "--until") };
    const service = await ctx.service();
    const result = await service.recoverWebhookDeliveries(await resolveRef(service, "webhook", args.webhook), body);
    if (ctx.out.options.json) return ctx.out.json(result);
    ctx.out.fields([
      ["webhookId", result.webhookId],
      ["since", result.since],
      ["until", result.until],
      ["recovered", result.recovered],
    ]);
  },
});
