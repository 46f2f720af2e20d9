import { errors } from "../../../contract/errors.js";
import { bodyFrom } from "../../document-input.js";
import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs, waitArgs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderRule } from "../../render/rules.js";
import { drainPipeline } from "../../common/drain.js";
import { ruleArgs, ruleFlagValues } from "./rule-flags.js";

/** `ddsctl rules update <rule>`. */
export default defineCommand({
  command: "rules update",
  description: "change a rule; a new expression bumps its version and its evaluations are recomputed",
  examples: [`ddsctl rules update min-loan --severity critical`, `echo '{"expression":{">=":[{"var":"Loan.amount"},75000]}}' | ddsctl rules update min-loan -f - --json`],
  args: { rule: refs.rule, ...ruleArgs("PATCH /rules/{id}"), ...waitArgs, ...outputArgs },
  writes: true,
  async handler(args, ctx) {
    const body = await bodyFrom(ctx.io, args.file, ruleFlagValues(args));
    if (Object.keys(body).length === 0) throw errors.usage("nothing to change: give -f <file|-> or --name/--category/--severity/--expression/--description/--context-types");
    const service = await ctx.service();
    const rule = await service.updateRule(await resolveRef(service, "rule", args.rule), body as never);
    renderRule(ctx.out, rule);
    if (rule.status === "active") await drainPipeline(ctx, args);
  },
});
