import { errors } from "../../../contract/errors.js";
import { bodyFrom, parsePairs } from "../../document-input.js";
import { defineCommand } from "../../core/define-command.js";
import { fileArg, outputArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderContext } from "../../render/contexts.js";

/** `ddsctl contexts update <context>`. */
export default defineCommand({
  command: "contexts update",
  description: "change a context's name, type or metadata (status has its own command)",
  examples: ["ddsctl contexts update case-42 --type remortgage", `echo '{"metadata":{"region":"east"}}' | ddsctl contexts update case-42 -f -`],
  args: {
    context: refs.context,
    ...fileArg("the PATCH /contexts/{id} body"),
    name: { type: "string", description: "new name" },
    type: { type: "string", description: "new type" },
    metadata: { type: "strings", placeholder: "key=value", description: "replace metadata with these pairs (repeatable)" },
    ...outputArgs,
  },
  writes: true,
  async handler(args, ctx) {
    const body = await bodyFrom(ctx.io, args.file, { name: args.name, type: args.type, metadata: parsePairs(args.metadata, "--metadata") });
    if (Object.keys(body).length === 0) throw errors.usage("nothing to change: give -f <file|-> or --name/--type/--metadata");
    const service = await ctx.service();
    renderContext(ctx.out, await service.updateContext(await resolveRef(service, "context", args.context), body));
  },
});
