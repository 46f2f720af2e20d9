import { defineCommand } from "../../core/define-command.js";
import { refs, yesArgs } from "../../core/shared-args.js";
import { resolveRef } from "../../names/resolve-ref.js";

/** `ddsctl models delete <model>`. */
export default defineCommand({
  command: "models delete",
  description: "soft-delete an archived model that has no active records",
  examples: ["ddsctl models delete Loan", "ddsctl models delete Loan --yes"],
  args: { model: refs.model, ...yesArgs },
  writes: true,
  async handler(args, ctx) {
    const service = await ctx.service();
    const id = await resolveRef(service, "model", args.model);
    await ctx.confirm(`Delete model ${args.model}?`, args.yes);
    await service.deleteModel(id);
    if (!ctx.out.options.json) ctx.out.info(`deleted model ${args.model}`);
  },
});
