import { defineCommand } from "../../core/define-command.js";
import { refs, waitArgs, yesArgs } from "../../core/shared-args.js";
import { drainPipeline } from "../../common/drain.js";
import { idRef } from "../../../portable/names/resolve-ref.js";

/** `ddsctl relationships remove <recordId> <name> <targetRecordId>`. */
export default defineCommand({
  command: "relationships remove",
  description: "remove one link; the pipeline keeps it removed until either record's identity changes",
  examples: ["ddsctl relationships remove <recordId> applicants <targetRecordId>", "ddsctl relationships remove <recordId> property <targetRecordId> --no-wait --yes"],
  args: {
    recordId: { ...refs.record, description: "the source record" },
    name: { type: "string", positional: true, required: true, description: "the relationship name" },
    targetRecordId: { type: "string", positional: true, required: true, description: "the linked record" },
    ...yesArgs,
    ...waitArgs,
  },
  writes: true,
  async handler(args, ctx) {
    const recordId = idRef("record", args.recordId);
    const target = idRef("record", args.targetRecordId);
    const service = await ctx.service();
    const contextId = args.wait ? (await service.getRecord(recordId)).contextId : undefined;
    await ctx.confirm(`Remove the ${args.name} link ${args.recordId} → ${args.targetRecordId}?`, args.yes);
    await service.removeRelationship(recordId, args.name, target);
    if (!ctx.out.options.json) ctx.out.info(`removed ${args.name} link ${args.recordId} → ${args.targetRecordId}`);
    await drainPipeline(ctx, args, contextId ? [contextId] : []);
  },
});
