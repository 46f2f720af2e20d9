import { RULE_STATUSES } from "../../../contract/constants.js";
import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs, waitArgs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderRule } from "../../render/rules.js";
import { drainPipeline } from "../../common/drain.js";

/** `ddsctl rules status <rule> <active|inactive>`. */
export default defineCommand({
  command: "rules status",
  description: "activate or deactivate a rule (only active rules are evaluated)",
  examples: ["ddsctl rules status min-loan inactive", "ddsctl rules status 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 active --json"],
  args: { rule: refs.rule, status: { type: "string", positional: true, required: true, description: RULE_STATUSES.join(" or ") }, ...waitArgs, ...outputArgs },
  writes: true,
  async handler(args, ctx) {
    const service = await ctx.service();
    renderRule(ctx.out, await service.setRuleStatus(await resolveRef(service, "rule", args.rule), args.status));
    await drainPipeline(ctx, args);
  },
});
