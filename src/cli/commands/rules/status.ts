import { defineCommand } from "../../command.js";
import { renderRule } from "../../render/rules.js";
import { drainPipeline, withNoWait } from "../pipeline/drain.js";
import { resolveRuleId } from "./rule-ref.js";

/** `ddsctl rules status <rule> <active|inactive>`. */
export default defineCommand({
  path: ["rules", "status"],
  description: "activate or deactivate a rule (only active rules are evaluated)",
  examples: ["ddsctl rules status min-loan inactive", "ddsctl rules status 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 active --json"],
  configure: (cmd) => withNoWait(cmd.argument("<rule>", "rule name or ruleId").argument("<status>", "active or inactive")),
  async run(ctx, [ref, status], flags) {
    const service = await ctx.service();
    renderRule(ctx.out, await service.setRuleStatus(await resolveRuleId(service, ref), status));
    await drainPipeline(ctx, flags);
  },
});
