import { defineCommand } from "../../command.js";
import { collectPages, listQueryFrom, withListOptions, renderPage, type ListFlags } from "../../list-options.js";
import { webhookColumns } from "./webhook-render.js";

/** `ddsctl webhooks list`. */
export default defineCommand({
  path: ["webhooks", "list"],
  description: "list webhook subscriptions (filter: url, createdAt)",
  examples: ["ddsctl webhooks list", "ddsctl webhooks list --filter url~=example.com --json"],
  configure: withListOptions,
  async run(ctx, _args, flags) {
    const service = await ctx.service();
    const page = await collectPages(flags as ListFlags, listQueryFrom(flags as ListFlags), (q) => service.listWebhooks(q));
    await renderPage(ctx.out, page, page.data, () => webhookColumns());
  },
});
