import { defineCommand } from "../../command.js";

/** `ddsctl contexts delete <contextId>`. */
export default defineCommand({
  path: ["contexts", "delete"],
  description: "soft-delete an archived context (kept for audit)",
  examples: ["ddsctl contexts delete 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10"],
  configure: (cmd) => cmd.argument("<contextId>"),
  async run(ctx, [id]) {
    await (await ctx.service()).deleteContext(id);
    if (!ctx.out.options.json) ctx.out.info(`deleted context ${id}`);
  },
});
