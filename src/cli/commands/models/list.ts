import { defineCommand } from "../../command.js";
import { collectPages, listQueryFrom, renderPage, withListOptions, type ListFlags } from "../../list-options.js";
import { modelColumns } from "../../render/models.js";

/** `ddsctl models list`. */
export default defineCommand({
  path: ["models", "list"],
  description: "list models (filter: name, status, version, createdAt, updatedAt)",
  examples: ["ddsctl models list", "ddsctl models list --filter status=active --sort -updatedAt --json"],
  configure: withListOptions,
  async run(ctx, _args, flags) {
    const service = await ctx.service();
    // The model list's envelope names its array `models` (the interface's words); map it
    // to the shared page shape to reuse --all, then back for --json.
    const { data, nextCursor, hasNextPage } = await collectPages(flags as ListFlags, listQueryFrom(flags as ListFlags), async (q) => {
      const p = await service.listModels(q);
      return { data: p.models, nextCursor: p.nextCursor, hasNextPage: p.hasNextPage };
    });
    const page = { models: data, nextCursor, hasNextPage };
    await renderPage(ctx.out, page, page.models, () => modelColumns(ctx.out));
  },
});
