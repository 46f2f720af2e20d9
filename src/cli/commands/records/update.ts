import { errors } from "../../../contract/errors.js";
import { bodyFrom, fieldTypes, parsePairs } from "../../document-input.js";
import { defineCommand, type CommandContext } from "../../core/define-command.js";
import { fileArg, outputArgs, waitArgs } from "../../core/shared-args.js";
import { bulkExitCode, renderBulk, succeededData } from "../../render/bulk.js";
import { renderRecord } from "../../render/records.js";
import { contextIdsOf, drainPipeline } from "../../common/drain.js";
import { readBulkItems } from "./bulk-file.js";
import { idRef } from "../../../portable/names/resolve-ref.js";

/** `ddsctl records update <recordId>` or `records update --bulk -f items.json`. */
export default defineCommand({
  command: "records update",
  description: "correct a record's data (stored as manual evidence, confidence 1.0); --bulk for up to 100 records",
  examples: [
    "ddsctl records update <recordId> --data amount=260000",
    `echo '{"data":{"amount":260000}}' | ddsctl records update <recordId> -f - --json`,
    `ddsctl records update --bulk -f updates.json   # {"items":[{"recordId":"…","data":{…}}]}`,
  ],
  args: {
    recordId: { type: "string", positional: true, description: "the record (omit with --bulk)" },
    ...fileArg("the PATCH /records/{id} body ({data}), or with --bulk the bulk body,"),
    data: { type: "strings", placeholder: "field=value", description: "a field value (repeatable; JSON values allowed; text fields take the text as written)" },
    bulk: { type: "boolean", description: "update many records: -f holds {items: [{recordId, data}]} or an array" },
    ...waitArgs,
    ...outputArgs,
  },
  writes: true,
  async handler(args, ctx) {
    if (args.bulk) return updateBulk(ctx, args);
    if (!args.recordId) throw errors.usage("give a recordId, or --bulk -f <file|-> for many records");
    const recordId = idRef("record", args.recordId);
    const service = await ctx.service();
    // `--data applicantId=123` on a string field means the text "123": read the field types.
    const types = args.data.length > 0 ? fieldTypes((await service.getRecord(recordId, { include: ["model"] })).model ?? { fields: [] }) : undefined;
    const pairs = parsePairs(args.data, "--data", types);
    const body = await bodyFrom(ctx.io, args.file, {});
    if (pairs) body.data = { ...(body.data as object | undefined), ...pairs };
    if (body.data === undefined) throw errors.usage("nothing to change: give --data field=value or -f <file|-> with {\"data\": {...}}");
    const record = await service.updateRecord(recordId, body as never);
    // People see the record as resolved after the drain; --json gets the PATCH response.
    if (ctx.out.options.json || !args.wait) await renderRecord(ctx.out, record);
    await drainPipeline(ctx, args, [record.contextId]);
    if (!ctx.out.options.json && args.wait) await renderRecord(ctx.out, await service.getRecord(recordId, { include: ["model"] }));
  },
});

async function updateBulk(ctx: CommandContext, args: { recordId?: string; data: string[]; file?: string; wait: boolean }): Promise<void> {
  if (args.recordId || args.data.length > 0) throw errors.usage("with --bulk, give each recordId and its data in the -f file, not as arguments");
  const items = await readBulkItems(ctx.io, args.file);
  const res = await (await ctx.service()).bulkUpdateRecords({ items });
  await renderBulk(ctx.out, res, (data) => `record ${(data as { recordId?: string } | undefined)?.recordId ?? "?"}`);
  ctx.setExitCode(bulkExitCode(res.summary));
  await drainPipeline(ctx, args, contextIdsOf(succeededData(res)));
}
