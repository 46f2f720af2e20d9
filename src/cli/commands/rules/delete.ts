import { defineCommand } from "../../command.js";
import { resolveRuleId } from "./rule-ref.js";

/** `ddsctl rules delete <rule>`. */
export default defineCommand({
  path: ["rules", "delete"],
  description: "soft-delete a rule (it stops being evaluated; kept for audit)",
  examples: ["ddsctl rules delete min-loan"],
  configure: (cmd) => cmd.argument("<rule>", "rule name or ruleId"),
  async run(ctx, [ref]) {
    const service = await ctx.service();
    await service.deleteRule(await resolveRuleId(service, ref));
    if (!ctx.out.options.json) ctx.out.info(`deleted rule ${ref}`);
  },
});
