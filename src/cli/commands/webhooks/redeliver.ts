import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderDelivery } from "./webhook-render.js";

/** `ddsctl webhooks redeliver <webhook> <delivery>`. */
export default defineCommand({
  command: "webhooks redeliver",
  description: "send one delivery again, with the same webhook-id (a pending one is left as it is)",
  examples: [
    "ddsctl webhooks redeliver https://example.com/hooks/dds 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10",
    "ddsctl webhooks redeliver 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 0193a0e3-1b2c-7d4e-8a57-2f5a1d3b9e11 --json",
  ],
  args: { webhook: refs.webhook, delivery: { type: "string", positional: true, required: true, placeholder: "deliveryId", description: "the delivery's id (webhooks deliveries lists them)" }, ...outputArgs },
  writes: true,
  async handler(args, ctx) {
    const service = await ctx.service();
    renderDelivery(ctx.out, await service.redeliverWebhookDelivery(await resolveRef(service, "webhook", args.webhook), args.delivery));
  },
});
