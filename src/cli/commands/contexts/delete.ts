import { defineCommand } from "../../core/define-command.js";
import { refs, yesArgs } from "../../core/shared-args.js";
import { resolveRef } from "../../names/resolve-ref.js";

/** `ddsctl contexts delete <context>`. */
export default defineCommand({
  command: "contexts delete",
  description: "soft-delete an archived context (kept for audit)",
  examples: ["ddsctl contexts delete case-42", "ddsctl contexts delete 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --yes"],
  args: { context: refs.context, ...yesArgs },
  writes: true,
  async handler(args, ctx) {
    const service = await ctx.service();
    const id = await resolveRef(service, "context", args.context);
    await ctx.confirm(`Delete context ${args.context}?`, args.yes);
    await service.deleteContext(id);
    if (!ctx.out.options.json) ctx.out.info(`deleted context ${args.context}`);
  },
});
