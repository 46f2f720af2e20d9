import { defineCommand } from "../../core/define-command.js";
import { listArgs, refs } from "../../core/shared-args.js";
import { collectPages, listQueryFrom, renderPage } from "../../list-options.js";
import { resolveRef } from "../../names/resolve-ref.js";
import { deliveryColumns } from "./webhook-render.js";

/** `ddsctl webhooks deliveries <webhook>`. */
export default defineCommand({
  command: "webhooks deliveries",
  description: "list a webhook's deliveries with attempts and last result (filter: status, eventType, createdAt)",
  examples: [
    "ddsctl webhooks deliveries 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10",
    "ddsctl webhooks deliveries https://example.com/hooks/dds --filter status=failed --json",
  ],
  args: { webhook: refs.webhook, ...listArgs },
  async handler(args, ctx) {
    const service = await ctx.service();
    const id = await resolveRef(service, "webhook", args.webhook);
    const page = await collectPages(args, listQueryFrom(args, "deliveries"), (q) => service.listWebhookDeliveries(id, q));
    await renderPage(ctx.out, page, page.data, () => deliveryColumns(ctx.out), "deliveries");
  },
});
