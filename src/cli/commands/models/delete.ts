import { defineCommand } from "../../core/define-command.js";
import { refs, yesArgs } from "../../core/shared-args.js";
import { deleteNamed } from "../../common/delete-named.js";

/** `ddsctl models delete <model>`. */
export default defineCommand({
  command: "models delete",
  description: "soft-delete an archived model that has no active records",
  examples: ["ddsctl models delete Loan", "ddsctl models delete Loan --yes"],
  args: { model: refs.model, ...yesArgs },
  writes: true,
  async handler(args, ctx) {
    await deleteNamed(ctx, "model", args.model, args.yes, (service, id) => service.deleteModel(id));
  },
});
