import { defineCommand } from "../../core/define-command.js";
import { filterExample } from "../../core/list-args.js";
import { listArgs } from "../../core/shared-args.js";
import { collectPages, listQueryFrom, renderPage } from "../../list-options.js";
import { modelColumns } from "../../render/models.js";

/** `ddsctl models list`. */
export default defineCommand({
  command: "models list",
  description: "list models (filter: name, status, version, createdAt, updatedAt)",
  examples: ["ddsctl models list", filterExample("models list", "models"), "ddsctl models list --filter status=active --sort -updatedAt --json", "ddsctl models list -o name"],
  args: listArgs("models"),
  async handler(args, ctx) {
    const service = await ctx.service();
    // The model list's envelope names its array `models` (the interface's words); map it
    // to the shared page shape to reuse --all, then back for --json.
    const { data, nextCursor, hasNextPage } = await collectPages(args, listQueryFrom(args, "models"), async (q) => {
      const p = await service.listModels(q);
      return { data: p.models, nextCursor: p.nextCursor, hasNextPage: p.hasNextPage };
    });
    const page = { models: data, nextCursor, hasNextPage };
    await renderPage(ctx.out, page, page.models, () => modelColumns(ctx.out), "models");
  },
});
