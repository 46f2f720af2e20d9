import { defineCommand } from "../../core/define-command.js";
import { refs, yesArgs } from "../../core/shared-args.js";
import { deleteNamed } from "../../common/delete-named.js";

/** `ddsctl contexts delete <context>`. */
export default defineCommand({
  command: "contexts delete",
  description: "soft-delete an archived context (kept for audit)",
  examples: ["ddsctl contexts delete case-42", "ddsctl contexts delete 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --yes"],
  args: { context: refs.context, ...yesArgs },
  writes: true,
  async handler(args, ctx) {
    await deleteNamed(ctx, "context", args.context, args.yes, (service, id) => service.deleteContext(id));
  },
});
