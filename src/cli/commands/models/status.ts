import { MODEL_STATUSES } from "../../../contract/constants.js";
import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderModel } from "../../render/models.js";
import { moveNeed, withStatusCommands } from "../../common/lifecycle-hints.js";

/** `ddsctl models status <model> <status>`. */
export default defineCommand({
  command: "models status",
  description: "move a model through its lifecycle: draft → active → archived",
  examples: ["ddsctl models status Loan active", "ddsctl models status Loan archived --json"],
  args: {
    model: refs.model,
    status: { type: "string", positional: true, required: true, description: MODEL_STATUSES.join(", ") },
    ...outputArgs,
  },
  writes: true,
  async handler(args, ctx) {
    const service = await ctx.service();
    const id = await resolveRef(service, "model", args.model);
    const need = moveNeed("model", args.model, id, args.status, async () => (await service.getModel(id)).status);
    await renderModel(ctx.out, await withStatusCommands(need, () => service.setModelStatus(id, args.status)));
  },
});
