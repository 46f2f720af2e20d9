import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderWebhook } from "./webhook-render.js";

/** `ddsctl webhooks enable <webhook>`. */
export default defineCommand({
  command: "webhooks enable",
  description: "enable a disabled webhook again (new events are sent; recover sends the ones it missed)",
  examples: ["ddsctl webhooks enable https://example.com/hooks/dds", "ddsctl webhooks enable 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --json"],
  args: { webhook: refs.webhook, ...outputArgs },
  writes: true,
  async handler(args, ctx) {
    const service = await ctx.service();
    const id = await resolveRef(service, "webhook", args.webhook);
    // Read first: enabling clears the times the hint below needs.
    const before = await service.getWebhook(id);
    renderWebhook(ctx.out, await service.setWebhookStatus(id, "enabled"));
    const since = before.failingSince ?? before.disabledAt;
    if (since) ctx.out.info(`events it missed are kept as failed deliveries; to send them: ddsctl webhooks recover ${id} --since ${since}`);
  },
});
