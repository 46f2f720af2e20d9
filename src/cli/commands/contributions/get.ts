import { defineCommand } from "../../core/define-command.js";
import { outputArgs } from "../../core/shared-args.js";
import { renderContribution } from "../../render/evidence.js";
import { idRef } from "../../../portable/names/resolve-ref.js";

/** `ddsctl contributions get <contributionId>`. */
export default defineCommand({
  command: "contributions get",
  description: "show one contribution: its source, the record it is bound to, its data and confidences",
  examples: ["ddsctl contributions get 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10", "ddsctl contributions get <contributionId> --json"],
  args: { contributionId: { type: "string", positional: true, required: true, description: "the contribution's id" }, ...outputArgs },
  async handler(args, ctx) {
    await renderContribution(ctx.out, await (await ctx.service()).getContribution(idRef("contribution", args.contributionId)));
  },
});
