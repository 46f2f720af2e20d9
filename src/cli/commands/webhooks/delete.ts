import { defineCommand } from "../../command.js";

/** `ddsctl webhooks delete <webhookId>`. */
export default defineCommand({
  path: ["webhooks", "delete"],
  description: "delete a webhook subscription (its pending deliveries are dropped as failed)",
  examples: ["ddsctl webhooks delete 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10"],
  configure: (cmd) => cmd.argument("<webhookId>"),
  async run(ctx, [id]) {
    await (await ctx.service()).deleteWebhook(id);
    if (!ctx.out.options.json) ctx.out.info(`deleted webhook ${id}`);
  },
});
