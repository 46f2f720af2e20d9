import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderWebhook } from "./webhook-render.js";

/** `ddsctl webhooks disable <webhook>`. */
export default defineCommand({
  command: "webhooks disable",
  description: "stop sending to a webhook; its events are kept as failed deliveries for recover",
  examples: ["ddsctl webhooks disable https://example.com/hooks/dds", "ddsctl webhooks disable 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --json"],
  args: { webhook: refs.webhook, ...outputArgs },
  writes: true,
  async handler(args, ctx) {
    const service = await ctx.service();
    renderWebhook(ctx.out, await service.setWebhookStatus(await resolveRef(service, "webhook", args.webhook), "disabled"));
  },
});
