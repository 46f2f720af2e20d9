import { CONTEXT_STATUSES } from "../../../contract/constants.js";
import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderContext } from "../../render/contexts.js";
import { moveNeed, withStatusCommands } from "../../common/lifecycle-hints.js";

/** `ddsctl contexts status <context> <status>`. */
export default defineCommand({
  command: "contexts status",
  description: "move a context: active ⇄ completed → archived",
  examples: ["ddsctl contexts status case-42 completed"],
  args: { context: refs.context, status: { type: "string", positional: true, required: true, description: CONTEXT_STATUSES.join(", ") }, ...outputArgs },
  writes: true,
  async handler(args, ctx) {
    const service = await ctx.service();
    const id = await resolveRef(service, "context", args.context);
    const need = moveNeed("context", args.context, id, args.status, async () => (await service.getContext(id)).status);
    renderContext(ctx.out, await withStatusCommands(need, () => service.setContextStatus(id, args.status)));
  },
});
