import { defineCommand } from "../../command.js";
import { drainPipeline, withNoWait } from "../pipeline/drain.js";

/** `ddsctl relationships remove <recordId> <name> <targetRecordId>`. */
export default defineCommand({
  path: ["relationships", "remove"],
  description: "remove one link; the pipeline keeps it removed until either record's identity changes",
  examples: ["ddsctl relationships remove <recordId> applicants <targetRecordId>", "ddsctl relationships remove <recordId> property <targetRecordId> --no-wait"],
  configure: (cmd) =>
    withNoWait(cmd.argument("<recordId>", "the source record").argument("<name>", "the relationship name").argument("<targetRecordId>", "the linked record")),
  async run(ctx, [id, name, target], flags) {
    const service = await ctx.service();
    const contextId = flags.wait === false ? undefined : (await service.getRecord(id)).contextId;
    await service.removeRelationship(id, name, target);
    if (!ctx.out.options.json) ctx.out.info(`removed ${name} link ${id} → ${target}`);
    await drainPipeline(ctx, flags, contextId ? [contextId] : []);
  },
});
