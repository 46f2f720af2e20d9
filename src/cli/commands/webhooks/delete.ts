import { defineCommand } from "../../core/define-command.js";
import { refs, yesArgs } from "../../core/shared-args.js";
import { deleteNamed } from "../../common/delete-named.js";

/** `ddsctl webhooks delete <webhook>`. */
export default defineCommand({
  command: "webhooks delete",
  description: "delete a webhook subscription (its pending deliveries are dropped as failed)",
  examples: ["ddsctl webhooks delete https://example.com/hooks/dds --yes", "ddsctl webhooks delete 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10"],
  args: { webhook: refs.webhook, ...yesArgs },
  writes: true,
  async handler(args, ctx) {
    await deleteNamed(ctx, "webhook", args.webhook, args.yes, (service, id) => service.deleteWebhook(id));
  },
});
