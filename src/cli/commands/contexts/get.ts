import { defineCommand } from "../../command.js";
import { renderContext } from "../../render/contexts.js";

/** `ddsctl contexts get <contextId>`. */
export default defineCommand({
  path: ["contexts", "get"],
  description: "show a context with both status dimensions (--summary adds counts)",
  examples: ["ddsctl contexts get 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --summary"],
  configure: (cmd) => cmd.argument("<contextId>").option("--summary", "include record and evaluation counts (include=summary)"),
  async run(ctx, [id], flags) {
    const service = await ctx.service();
    renderContext(ctx.out, await service.getContext(id, flags.summary ? { include: ["summary"] } : undefined));
  },
});
