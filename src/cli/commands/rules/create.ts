import { errors } from "../../../contract/errors.js";
import { bodyFrom } from "../../document-input.js";
import { defineCommand } from "../../core/define-command.js";
import { outputArgs, waitArgs } from "../../core/shared-args.js";
import { renderRule } from "../../render/rules.js";
import { drainPipeline } from "../../common/drain.js";
import { ruleArgs, ruleFlagValues } from "./rule-flags.js";

/** `ddsctl rules create`. */
export default defineCommand({
  command: "rules create",
  description: "create a rule (a JSON Logic expression over a context's records), active unless --inactive",
  examples: [
    `ddsctl rules create --name min-loan --category eligibility --severity high --expression '{">=":[{"var":"Loan.amount"},50000]}'`,
    "ddsctl rules create -f rule.json --json   # a POST /rules body; fixtures/mortgage/rules/*.yaml are apply documents",
  ],
  args: { ...ruleArgs("POST /rules"), inactive: { type: "boolean", description: "create it inactive (not evaluated until activated)" }, ...waitArgs, ...outputArgs },
  writes: true,
  async handler(args, ctx) {
    if (!args.file) {
      const missing = (["name", "category", "severity", "expression"] as const).filter((k) => args[k] === undefined);
      if (missing.length > 0) throw errors.usage(`missing ${missing.map((k) => `--${k}`).join(", ")} (or give the body with -f <file|->)`);
    }
    const body = await bodyFrom(ctx.io, args.file, { ...ruleFlagValues(args), status: args.inactive ? "inactive" : undefined });
    const rule = await (await ctx.service()).createRule(body as never);
    renderRule(ctx.out, rule);
    if (rule.status === "active") await drainPipeline(ctx, args);
  },
});
