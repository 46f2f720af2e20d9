import { errors } from "../../../contract/errors.js";
import { defineCommand, type CommandContext } from "../../command.js";
import { bulkExitCode, renderBulk } from "../../render/bulk.js";
import { drainPipeline, withNoWait } from "../pipeline/drain.js";
import { readBulkItems } from "./bulk-file.js";

/** `ddsctl records delete <recordId>` or `records delete --bulk -f items.json`. */
export default defineCommand({
  path: ["records", "delete"],
  description: "soft-delete a record (its contributions and links drop out of resolution); --bulk for up to 100",
  examples: [
    "ddsctl records delete <recordId>",
    `ddsctl records delete --bulk -f deletes.json   # {"items":[{"recordId":"…"}]} or ["<recordId>", …]`,
  ],
  configure: (cmd) =>
    withNoWait(
      cmd
        .argument("[recordId]", "the record (omit with --bulk)")
        .option("--bulk", "delete many records")
        .option("-f, --file <path|->", "with --bulk: {items: [{recordId}]}, an array of them, or an array of ids"),
    ),
  async run(ctx, [id], flags) {
    if (flags.bulk) return deleteBulk(ctx, id, flags);
    if (!id) throw errors.usage("give a recordId, or --bulk -f <file|-> for many records");
    const service = await ctx.service();
    // The record's context is what the drain has to resolve; learn it before it is gone.
    const contextId = flags.wait === false ? undefined : (await service.getRecord(id)).contextId;
    await service.deleteRecord(id);
    if (!ctx.out.options.json) ctx.out.info(`deleted record ${id}`);
    await drainPipeline(ctx, flags, contextId ? [contextId] : []);
  },
});

async function deleteBulk(ctx: CommandContext, id: string | undefined, flags: Record<string, unknown>): Promise<void> {
  if (id) throw errors.usage("with --bulk, list the recordIds in the -f file, not as an argument");
  const items = (await readBulkItems(flags.file as string | undefined)).map((i) => (typeof i === "string" ? { recordId: i } : i));
  const res = await (await ctx.service()).bulkDeleteRecords({ items });
  await renderBulk(ctx.out, res, () => "deleted");
  ctx.setExitCode(bulkExitCode(res.summary));
  // Deleted records cannot tell their contexts any more: drain every stale context.
  if (res.summary.succeeded > 0) await drainPipeline(ctx, flags);
}
