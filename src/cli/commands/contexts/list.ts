import { defineCommand } from "../../command.js";
import { collectPages, listQueryFrom, withListOptions, renderPage, type ListFlags } from "../../list-options.js";
import { contextColumns } from "../../render/contexts.js";

/** `ddsctl contexts list`. */
export default defineCommand({
  path: ["contexts", "list"],
  description: "list contexts (filter: status, freshness, type, name, metadata.<key>, createdAt, updatedAt, resolvedAt)",
  examples: ["ddsctl contexts list --filter status=active --filter metadata.region=west", "ddsctl contexts list --sort -createdAt --limit 10 --json"],
  configure: withListOptions,
  async run(ctx, _args, flags) {
    const service = await ctx.service();
    const page = await collectPages(flags as ListFlags, listQueryFrom(flags as ListFlags), (q) => service.listContexts(q));
    await renderPage(ctx.out, page, page.data, () => contextColumns(ctx.out));
  },
});
