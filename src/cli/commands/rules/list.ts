import { defineCommand } from "../../core/define-command.js";
import { filterExample } from "../../core/list-args.js";
import { listArgs } from "../../core/shared-args.js";
import { collectPages, listQueryFrom, renderPage } from "../../list-options.js";
import { ruleColumns } from "../../render/rules.js";

/** `ddsctl rules list`. */
export default defineCommand({
  command: "rules list",
  description: "list rules (filter: name, category, severity, status, version, createdAt, updatedAt)",
  examples: ["ddsctl rules list", filterExample("rules list", "rules"), "ddsctl rules list --filter 'severity[in]=high,critical' --filter status=active --json"],
  args: listArgs("rules"),
  async handler(args, ctx) {
    const service = await ctx.service();
    const page = await collectPages(args, listQueryFrom(args, "rules"), (q) => service.listRules(q));
    await renderPage(ctx.out, page, page.data, () => ruleColumns(ctx.out), "rules");
  },
});
