import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderModel } from "../../render/models.js";

/** `ddsctl models get <model>`. */
export default defineCommand({
  command: "models get",
  description: "show a model with all its fields (by name or modelId)",
  examples: ["ddsctl models get Loan", "ddsctl models get 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 -o yaml"],
  args: { model: refs.model, ...outputArgs },
  async handler(args, ctx) {
    const service = await ctx.service();
    await renderModel(ctx.out, await service.getModel(await resolveRef(service, "model", args.model)));
  },
});
