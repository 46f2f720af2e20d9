import { defineCommand } from "../../command.js";
import { renderRule } from "../../render/rules.js";
import { resolveRuleId } from "./rule-ref.js";

/** `ddsctl rules get <rule>`. */
export default defineCommand({
  path: ["rules", "get"],
  description: "show a rule with its expression (by name or ruleId)",
  examples: ["ddsctl rules get min-loan", "ddsctl rules get 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --json"],
  configure: (cmd) => cmd.argument("<rule>", "rule name or ruleId"),
  async run(ctx, [ref]) {
    const service = await ctx.service();
    renderRule(ctx.out, await service.getRule(await resolveRuleId(service, ref)));
  },
});
