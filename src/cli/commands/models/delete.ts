import { defineCommand } from "../../command.js";
import { resolveModelId } from "../../resolve.js";

/** `ddsctl models delete <model>`. */
export default defineCommand({
  path: ["models", "delete"],
  description: "soft-delete an archived model that has no active records",
  examples: ["ddsctl models delete Loan"],
  configure: (cmd) => cmd.argument("<model>", "model name or modelId"),
  async run(ctx, [ref]) {
    const service = await ctx.service();
    const id = await resolveModelId(service, ref);
    await service.deleteModel(id);
    if (!ctx.out.options.json) ctx.out.info(`deleted model ${ref}`);
  },
});
