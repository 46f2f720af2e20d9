import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderRule } from "../../render/rules.js";

/** `ddsctl rules get <rule>`. */
export default defineCommand({
  command: "rules get",
  description: "show a rule with its expression (by name or ruleId)",
  examples: ["ddsctl rules get min-loan", "ddsctl rules get 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 -o yaml"],
  args: { rule: refs.rule, ...outputArgs },
  async handler(args, ctx) {
    const service = await ctx.service();
    renderRule(ctx.out, await service.getRule(await resolveRef(service, "rule", args.rule)));
  },
});
