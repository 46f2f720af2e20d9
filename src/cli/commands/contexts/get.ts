import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderContext } from "../../render/contexts.js";

/** `ddsctl contexts get <context>`. */
export default defineCommand({
  command: "contexts get",
  description: "show a context with both status dimensions (--summary adds counts)",
  examples: ["ddsctl contexts get case-42 --summary", "ddsctl contexts get 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 -o yaml"],
  args: { context: refs.context, summary: { type: "boolean", description: "include record and evaluation counts (include=summary)" }, ...outputArgs },
  async handler(args, ctx) {
    const service = await ctx.service();
    const id = await resolveRef(service, "context", args.context);
    renderContext(ctx.out, await service.getContext(id, args.summary ? { include: ["summary"] } : undefined));
  },
});
