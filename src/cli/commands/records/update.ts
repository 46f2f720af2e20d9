import { errors } from "../../../contract/errors.js";
import { bodyFrom, parsePairs } from "../../body.js";
import { defineCommand, type CommandContext } from "../../command.js";
import { bulkExitCode, renderBulk, succeededData } from "../../render/bulk.js";
import { renderRecord } from "../../render/records.js";
import { contextIdsOf, drainPipeline, withNoWait } from "../pipeline/drain.js";
import { readBulkItems } from "./bulk-file.js";

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** `ddsctl records update <recordId>` or `records update --bulk -f items.json`. */
export default defineCommand({
  path: ["records", "update"],
  description: "correct a record's data (stored as manual evidence, confidence 1.0); --bulk for up to 100 records",
  examples: [
    "ddsctl records update <recordId> --data amount=260000",
    `echo '{"data":{"amount":260000}}' | ddsctl records update <recordId> -f - --json`,
    `ddsctl records update --bulk -f updates.json   # {"items":[{"recordId":"…","data":{…}}]}`,
  ],
  configure: (cmd) =>
    withNoWait(
      cmd
        .argument("[recordId]", "the record (omit with --bulk)")
        .option("-f, --file <path|->", "the PATCH /records/{id} body ({data}), or with --bulk the bulk body, as JSON")
        .option("--data <field=value>", "a field value (repeatable; JSON values allowed)", collect)
        .option("--bulk", "update many records: -f holds {items: [{recordId, data}]} or an array"),
    ),
  async run(ctx, [id], flags) {
    if (flags.bulk) return updateBulk(ctx, id, flags);
    if (!id) throw errors.usage("give a recordId, or --bulk -f <file|-> for many records");
    const pairs = parsePairs(flags.data as string[] | undefined, "--data");
    const body = await bodyFrom(flags.file as string | undefined, {});
    if (pairs) body.data = { ...(body.data as object | undefined), ...pairs };
    if (body.data === undefined) throw errors.usage("nothing to change: give --data field=value or -f <file|-> with {\"data\": {...}}");
    const service = await ctx.service();
    const record = await service.updateRecord(id, body as never);
    // People see the record as resolved after the drain; --json gets the PATCH response.
    if (ctx.out.options.json || flags.wait === false) await renderRecord(ctx.out, record);
    await drainPipeline(ctx, flags, [record.contextId]);
    if (!ctx.out.options.json && flags.wait !== false) await renderRecord(ctx.out, await service.getRecord(id, { include: ["model"] }));
  },
});

async function updateBulk(ctx: CommandContext, id: string | undefined, flags: Record<string, unknown>): Promise<void> {
  if (id || flags.data) throw errors.usage("with --bulk, give each recordId and its data in the -f file, not as arguments");
  const items = await readBulkItems(flags.file as string | undefined);
  const res = await (await ctx.service()).bulkUpdateRecords({ items });
  await renderBulk(ctx.out, res, (data) => `record ${(data as { recordId?: string } | undefined)?.recordId ?? "?"} updated`);
  ctx.setExitCode(bulkExitCode(res.summary));
  await drainPipeline(ctx, flags, contextIdsOf(succeededData(res)));
}
