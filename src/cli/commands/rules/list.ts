import { defineCommand } from "../../command.js";
import { collectPages, listQueryFrom, withListOptions, renderPage, type ListFlags } from "../../list-options.js";
import { ruleColumns } from "../../render/rules.js";

/** `ddsctl rules list`. */
export default defineCommand({
  path: ["rules", "list"],
  description: "list rules (filter: name, category, severity, status, version, createdAt, updatedAt)",
  examples: ["ddsctl rules list", "ddsctl rules list --filter severity[in]=high,critical --filter status=active --json"],
  configure: withListOptions,
  async run(ctx, _args, flags) {
    const service = await ctx.service();
    const page = await collectPages(flags as ListFlags, listQueryFrom(flags as ListFlags), (q) => service.listRules(q));
    await renderPage(ctx.out, page, page.data, () => ruleColumns(ctx.out));
  },
});
