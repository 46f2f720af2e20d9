import { defineCommand } from "../../core/define-command.js";
import { filterExample } from "../../core/list-args.js";
import { listArgs } from "../../core/shared-args.js";
import { collectPages, listQueryFrom, renderPage } from "../../list-options.js";
import { webhookColumns } from "./webhook-render.js";

/** `ddsctl webhooks list`. */
export default defineCommand({
  command: "webhooks list",
  description: "list webhook subscriptions (filter: url, createdAt)",
  examples: ["ddsctl webhooks list", filterExample("webhooks list", "webhooks"), "ddsctl webhooks list --filter url~=example.com --json"],
  args: listArgs("webhooks"),
  async handler(args, ctx) {
    const service = await ctx.service();
    const page = await collectPages(args, listQueryFrom(args, "webhooks"), (q) => service.listWebhooks(q));
    await renderPage(ctx.out, page, page.data, () => webhookColumns(ctx.out), "webhooks");
  },
});
