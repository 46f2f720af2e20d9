import { defineCommand } from "../../core/define-command.js";
import { filterExample } from "../../core/list-args.js";
import { listArgs } from "../../core/shared-args.js";
import { collectPages, listQueryFrom, renderPage } from "../../list-options.js";
import { contextColumns } from "../../render/contexts.js";

/** `ddsctl contexts list`. */
export default defineCommand({
  command: "contexts list",
  description: "list contexts (filter: status, freshness, type, name, metadata.<key>, createdAt, updatedAt, resolvedAt)",
  examples: [filterExample("contexts list", "contexts"), "ddsctl contexts list --sort -createdAt --limit 10 --json"],
  args: listArgs("contexts"),
  async handler(args, ctx) {
    const service = await ctx.service();
    const page = await collectPages(args, listQueryFrom(args, "contexts"), (q) => service.listContexts(q));
    await renderPage(ctx.out, page, page.data, () => contextColumns(ctx.out), "contexts");
  },
});
