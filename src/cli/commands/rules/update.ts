import { errors } from "../../../contract/errors.js";
import { bodyFrom } from "../../body.js";
import { defineCommand } from "../../command.js";
import { renderRule } from "../../render/rules.js";
import { drainPipeline, withNoWait } from "../pipeline/drain.js";
import { resolveRuleId } from "./rule-ref.js";
import { ruleFlagValues, withRuleFlags } from "./rule-flags.js";

/** `ddsctl rules update <rule>`. */
export default defineCommand({
  path: ["rules", "update"],
  description: "change a rule; a new expression bumps its version and its evaluations are recomputed",
  examples: [`ddsctl rules update min-loan --severity critical`, `echo '{"expression":{">=":[{"var":"Loan.amount"},75000]}}' | ddsctl rules update min-loan -f - --json`],
  configure: (cmd) => withNoWait(withRuleFlags(cmd.argument("<rule>", "rule name or ruleId"), "PATCH /rules/{id}")),
  async run(ctx, [ref], flags) {
    const body = await bodyFrom(flags.file as string | undefined, ruleFlagValues(flags));
    if (Object.keys(body).length === 0) throw errors.usage("nothing to change: give -f <file|-> or --name/--category/--severity/--expression/--description/--context-types");
    const service = await ctx.service();
    const rule = await service.updateRule(await resolveRuleId(service, ref), body as never);
    renderRule(ctx.out, rule);
    if (rule.status === "active") await drainPipeline(ctx, flags);
  },
});
