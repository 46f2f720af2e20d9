import { defineCommand } from "../../command.js";
import { renderWebhook } from "./webhook-render.js";

/** `ddsctl webhooks get <webhookId>`. */
export default defineCommand({
  path: ["webhooks", "get"],
  description: "show a webhook subscription (the secret is never shown again)",
  examples: ["ddsctl webhooks get 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --json"],
  configure: (cmd) => cmd.argument("<webhookId>"),
  async run(ctx, [id]) {
    renderWebhook(ctx.out, await (await ctx.service()).getWebhook(id));
  },
});
