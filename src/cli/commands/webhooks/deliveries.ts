import { defineCommand } from "../../command.js";
import { collectPages, listQueryFrom, withListOptions, renderPage, type ListFlags } from "../../list-options.js";
import { deliveryColumns } from "./webhook-render.js";

/** `ddsctl webhooks deliveries <webhookId>`. */
export default defineCommand({
  path: ["webhooks", "deliveries"],
  description: "list a webhook's deliveries with attempts and last result (filter: status, eventType, createdAt)",
  examples: [
    "ddsctl webhooks deliveries 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10",
    "ddsctl webhooks deliveries 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --filter status=failed --json",
  ],
  configure: (cmd) => withListOptions(cmd.argument("<webhookId>")),
  async run(ctx, [id], flags) {
    const service = await ctx.service();
    const page = await collectPages(flags as ListFlags, listQueryFrom(flags as ListFlags), (q) => service.listWebhookDeliveries(id, q));
    await renderPage(ctx.out, page, page.data, () => deliveryColumns(ctx.out));
  },
});
