import { bodyFrom, parsePairs } from "../../document-input.js";
import { defineCommand } from "../../core/define-command.js";
import { fileArg, metadataArg, outputArgs } from "../../core/shared-args.js";
import { renderContext } from "../../render/contexts.js";

/** `ddsctl contexts create`. */
export default defineCommand({
  command: "contexts create",
  description: "create a decisioning context (status active, freshness resolved)",
  examples: ["ddsctl contexts create --name case-42 --type mortgage --metadata region=west", `echo '{"name":"case-42"}' | ddsctl contexts create -f - --json`],
  args: {
    ...fileArg("the POST /contexts body"),
    name: { type: "string", description: "human-readable name" },
    type: { type: "string", description: "free-form classification" },
    metadata: metadataArg,
    ...outputArgs,
  },
  writes: true,
  async handler(args, ctx) {
    const body = await bodyFrom(ctx.io, args.file, { name: args.name, type: args.type, metadata: parsePairs(args.metadata, "--metadata") });
    renderContext(ctx.out, await (await ctx.service()).createContext(body));
  },
});
