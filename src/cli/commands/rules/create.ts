import { errors } from "../../../contract/errors.js";
import { bodyFrom } from "../../body.js";
import { defineCommand } from "../../command.js";
import { renderRule } from "../../render/rules.js";
import { drainPipeline, withNoWait } from "../pipeline/drain.js";
import { ruleFlagValues, withRuleFlags } from "./rule-flags.js";

/** `ddsctl rules create`. */
export default defineCommand({
  path: ["rules", "create"],
  description: "create a rule (a JSON Logic expression over a context's records), active unless --inactive",
  examples: [
    `ddsctl rules create --name min-loan --category eligibility --severity high --expression '{">=":[{"var":"Loan.amount"},50000]}'`,
    "ddsctl rules create -f rule.json --json   # a POST /rules body; fixtures/mortgage/rules/*.yaml are apply documents",
  ],
  configure: (cmd) => withNoWait(withRuleFlags(cmd, "POST /rules").option("--inactive", "create it inactive (not evaluated until activated)")),
  async run(ctx, _args, flags) {
    if (!flags.file) {
      const missing = ["name", "category", "severity", "expression"].filter((k) => flags[k] === undefined);
      if (missing.length > 0) throw errors.usage(`missing ${missing.map((k) => `--${k}`).join(", ")} (or give the body with -f <file|->)`);
    }
    const body = await bodyFrom(flags.file as string | undefined, { ...ruleFlagValues(flags), status: flags.inactive ? "inactive" : undefined });
    const rule = await (await ctx.service()).createRule(body as never);
    renderRule(ctx.out, rule);
    if (rule.status === "active") await drainPipeline(ctx, flags);
  },
});
