import { defineCommand } from "../../core/define-command.js";
import { refs, yesArgs } from "../../core/shared-args.js";
import { resolveRef } from "../../names/resolve-ref.js";

/** `ddsctl webhooks delete <webhook>`. */
export default defineCommand({
  command: "webhooks delete",
  description: "delete a webhook subscription (its pending deliveries are dropped as failed)",
  examples: ["ddsctl webhooks delete https://example.com/hooks/dds --yes", "ddsctl webhooks delete 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10"],
  args: { webhook: refs.webhook, ...yesArgs },
  writes: true,
  async handler(args, ctx) {
    const service = await ctx.service();
    const id = await resolveRef(service, "webhook", args.webhook);
    await ctx.confirm(`Delete webhook ${args.webhook}?`, args.yes);
    await service.deleteWebhook(id);
    if (!ctx.out.options.json) ctx.out.info(`deleted webhook ${args.webhook}`);
  },
});
