import { DELIVERY_STATUSES } from "../../../contract/constants.js";
import { defineCommand } from "../../core/define-command.js";
import { filterExample } from "../../core/list-args.js";
import { listArgs, refs } from "../../core/shared-args.js";
import { collectPages, listQueryFrom, renderPage } from "../../list-options.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { deliveryColumns } from "./webhook-render.js";

/** `ddsctl webhooks deliveries <webhook> [--status failed]`. */
export default defineCommand({
  command: "webhooks deliveries",
  description: "list a webhook's deliveries: status, attempts, last result, next attempt (filter: status, eventType, createdAt)",
  examples: [
    "ddsctl webhooks deliveries https://example.com/hooks/dds --status failed",
    filterExample("webhooks deliveries", "deliveries", "https://example.com/hooks/dds"),
    "ddsctl webhooks deliveries https://example.com/hooks/dds --filter status=failed --json",
  ],
  args: {
    webhook: refs.webhook,
    status: {
      type: "string",
      placeholder: "status",
      choices: DELIVERY_STATUSES,
      explainInvalid: (value) => (value === "delivered" ? '"delivered" is called "succeeded" now.' : ""),
      description: "only deliveries of this status: pending, succeeded or failed",
    },
    ...listArgs("deliveries"),
  },
  async handler(args, ctx) {
    const service = await ctx.service();
    const id = await resolveRef(service, "webhook", args.webhook);
    const extra = args.status ? [{ field: "status", op: "eq" as const, value: args.status }] : [];
    const page = await collectPages(args, listQueryFrom(args, "deliveries", extra), (q) => service.listWebhookDeliveries(id, q));
    await renderPage(ctx.out, page, page.data, () => deliveryColumns(ctx.out), "deliveries");
  },
});
