import { CONTEXT_STATUSES } from "../../../contract/constants.js";
import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../names/resolve-ref.js";
import { renderContext } from "../../render/contexts.js";

/** `ddsctl contexts status <context> <status>`. */
export default defineCommand({
  command: "contexts status",
  description: "move a context: active ⇄ completed → archived",
  examples: ["ddsctl contexts status case-42 completed"],
  args: { context: refs.context, status: { type: "string", positional: true, required: true, description: CONTEXT_STATUSES.join(", ") }, ...outputArgs },
  writes: true,
  async handler(args, ctx) {
    const service = await ctx.service();
    renderContext(ctx.out, await service.setContextStatus(await resolveRef(service, "context", args.context), args.status));
  },
});
