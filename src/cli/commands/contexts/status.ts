import { defineCommand } from "../../command.js";
import { renderContext } from "../../render/contexts.js";

/** `ddsctl contexts status <contextId> <status>`. */
export default defineCommand({
  path: ["contexts", "status"],
  description: "move a context: active ⇄ completed → archived",
  examples: ["ddsctl contexts status 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 completed"],
  configure: (cmd) => cmd.argument("<contextId>").argument("<status>", "active, completed or archived"),
  async run(ctx, [id, status]) {
    renderContext(ctx.out, await (await ctx.service()).setContextStatus(id, status));
  },
});
