import { defineCommand } from "../../command.js";
import { resolveModelId } from "../../resolve.js";
import { renderModel } from "../../render/models.js";

/** `ddsctl models get <model>`. */
export default defineCommand({
  path: ["models", "get"],
  description: "show a model with all its fields (by name or modelId)",
  examples: ["ddsctl models get Loan", "ddsctl models get 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --json"],
  configure: (cmd) => cmd.argument("<model>", "model name or modelId"),
  async run(ctx, [ref]) {
    const service = await ctx.service();
    await renderModel(ctx.out, await service.getModel(await resolveModelId(service, ref)));
  },
});
