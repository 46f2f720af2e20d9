import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderWebhook } from "./webhook-render.js";

/** `ddsctl webhooks get <webhook>`. */
export default defineCommand({
  command: "webhooks get",
  description: "show a webhook subscription (the secret is never shown again)",
  examples: ["ddsctl webhooks get 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --json", "ddsctl webhooks get https://example.com/hooks/dds"],
  args: { webhook: refs.webhook, ...outputArgs },
  async handler(args, ctx) {
    const service = await ctx.service();
    renderWebhook(ctx.out, await service.getWebhook(await resolveRef(service, "webhook", args.webhook)));
  },
});
