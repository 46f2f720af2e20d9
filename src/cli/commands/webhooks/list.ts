import { defineCommand } from "../../command.js";
import { collectPages, listQueryFrom, withListOptions, type ListFlags } from "../../list-options.js";
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
    if (ctx.out.options.json) return ctx.out.json(page);
    await ctx.out.table(page.data, webhookColumns());
    if (page.hasNextPage) ctx.out.info(ctx.out.c.dim(`more: --cursor ${page.nextCursor} (or --all)`));
  },
});
