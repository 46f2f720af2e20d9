import { defineCommand } from "../../core/define-command.js";
import { filterExample } from "../../core/list-args.js";
import { listArgs, refs } from "../../core/shared-args.js";
import { collectPages, listQueryFrom, renderPage } from "../../list-options.js";
import { resolveRef } from "../../names/resolve-ref.js";
import { deliveryColumns } from "./webhook-render.js";

/** `ddsctl webhooks deliveries <webhook>`. */
export default defineCommand({
  command: "webhooks deliveries",
  description: "list a webhook's deliveries with attempts and last result (filter: status, eventType, createdAt)",
  examples: [
    "ddsctl webhooks deliveries <webhookId>",
    filterExample("webhooks deliveries", "deliveries", "https://example.com/hooks/dds"),
    "ddsctl webhooks deliveries https://example.com/hooks/dds --filter status=failed --json",
  ],
  args: { webhook: refs.webhook, ...listArgs("deliveries") },
  async handler(args, ctx) {
    const service = await ctx.service();
    const id = await resolveRef(service, "webhook", args.webhook);
    const page = await collectPages(args, listQueryFrom(args, "deliveries"), (q) => service.listWebhookDeliveries(id, q));
    await renderPage(ctx.out, page, page.data, () => deliveryColumns(ctx.out), "deliveries");
  },
});
