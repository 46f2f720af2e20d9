import { defineCommand } from "../../command.js";
import { listQueryFrom, withListOptions, type ListFlags } from "../../list-options.js";
import { modelColumns } from "../../render/models.js";

/** `ddsctl models list`. */
export default defineCommand({
  path: ["models", "list"],
  description: "list models (filter: name, status, version, createdAt, updatedAt)",
  examples: ["ddsctl models list", "ddsctl models list --filter status=active --sort -updatedAt --json"],
  configure: withListOptions,
  async run(ctx, _args, flags) {
    const service = await ctx.service();
    const f = flags as ListFlags;
    const query = listQueryFrom(f);
    let page = await service.listModels(query);
    if (f.all) {
      const models = [...page.models];
      while (page.hasNextPage && page.nextCursor) {
        page = await service.listModels({ ...query, cursor: page.nextCursor });
        models.push(...page.models);
      }
      page = { models, nextCursor: null, hasNextPage: false };
    }
    if (ctx.out.options.json) return ctx.out.json(page);
    await ctx.out.table(page.models, modelColumns(ctx.out));
    if (page.hasNextPage) ctx.out.info(ctx.out.c.dim(`more: --cursor ${page.nextCursor} (or --all)`));
  },
});
