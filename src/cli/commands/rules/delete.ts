import { defineCommand } from "../../core/define-command.js";
import { refs, yesArgs } from "../../core/shared-args.js";
import { resolveRef } from "../../names/resolve-ref.js";

/** `ddsctl rules delete <rule>`. */
export default defineCommand({
  command: "rules delete",
  description: "soft-delete a rule (it stops being evaluated; kept for audit)",
  examples: ["ddsctl rules delete min-loan", "ddsctl rules delete min-loan --yes"],
  args: { rule: refs.rule, ...yesArgs },
  writes: true,
  async handler(args, ctx) {
    const service = await ctx.service();
    const id = await resolveRef(service, "rule", args.rule);
    await ctx.confirm(`Delete rule ${args.rule}?`, args.yes);
    await service.deleteRule(id);
    if (!ctx.out.options.json) ctx.out.info(`deleted rule ${args.rule}`);
  },
});
