import { defineCommand } from "../../command.js";
import { resolveModelId } from "../../resolve.js";
import { renderModel } from "../../render/models.js";

/** `ddsctl models status <model> <status>`. */
export default defineCommand({
  path: ["models", "status"],
  description: "move a model through its lifecycle: draft → active → archived",
  examples: ["ddsctl models status Loan active", "ddsctl models status Loan archived --json"],
  configure: (cmd) => cmd.argument("<model>", "model name or modelId").argument("<status>", "draft, active or archived"),
  async run(ctx, [ref, status]) {
    const service = await ctx.service();
    await renderModel(ctx.out, await service.setModelStatus(await resolveModelId(service, ref), status));
  },
});
