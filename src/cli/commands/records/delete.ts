import { errors } from "../../../contract/errors.js";
import { defineCommand, type CommandContext } from "../../core/define-command.js";
import { fileArg, outputArgs, waitArgs, yesArgs } from "../../core/shared-args.js";
import { bulkExitCode, renderBulk } from "../../render/bulk.js";
import { drainPipeline } from "../../common/drain.js";
import { readBulkItems } from "./bulk-file.js";
import { idRef } from "../../../portable/names/resolve-ref.js";

/** `ddsctl records delete <recordId>` or `records delete --bulk -f items.json`. */
export default defineCommand({
  command: "records delete",
  description: "soft-delete a record (its contributions and links drop out of resolution); --bulk for up to 100",
  examples: [
    "ddsctl records delete <recordId> --yes",
    `ddsctl records delete --bulk -f deletes.json   # {"items":[{"recordId":"…"}]} or ["<recordId>", …]`,
  ],
  args: {
    recordId: { type: "string", positional: true, description: "the record (omit with --bulk)" },
    bulk: { type: "boolean", description: "delete many records" },
    ...fileArg("with --bulk: {items: [{recordId}]}, an array of them, or an array of ids"),
    ...yesArgs,
    ...waitArgs,
    ...outputArgs,
  },
  writes: true,
  async handler(args, ctx) {
    if (args.bulk) return deleteBulk(ctx, args);
    if (!args.recordId) throw errors.usage("give a recordId, or --bulk -f <file|-> for many records");
    const recordId = idRef("record", args.recordId);
    const service = await ctx.service();
    // The record's context is what the drain has to resolve; learn it before it is gone.
    const contextId = (await service.getRecord(recordId)).contextId;
    await ctx.confirm(`Delete record ${args.recordId}?`, args.yes);
    await service.deleteRecord(recordId);
    if (!ctx.out.options.json) ctx.out.info(`deleted record ${args.recordId}`);
    await drainPipeline(ctx, args, [contextId]);
  },
});

async function deleteBulk(ctx: CommandContext, args: { recordId?: string; file?: string; yes: boolean; wait: boolean }): Promise<void> {
  if (args.recordId) throw errors.usage("with --bulk, list the recordIds in the -f file, not as an argument");
  const items = (await readBulkItems(ctx.io, args.file)).map((i) => (typeof i === "string" ? { recordId: i } : i));
  await ctx.confirm(`Delete ${items.length} record(s)?`, args.yes);
  const res = await (await ctx.service()).bulkDeleteRecords({ items });
  await renderBulk(ctx.out, res, () => "deleted");
  ctx.setExitCode(bulkExitCode(res.summary));
  // Deleted records cannot tell their contexts any more: drain every stale context.
  if (res.summary.succeeded > 0) await drainPipeline(ctx, args);
}
