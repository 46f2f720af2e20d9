import { errors } from "../../../contract/errors.js";
import { RECORD_INCLUDES } from "../../../contract/constants.js";
import type { RecordInclude } from "../../../contract/schemas/index.js";
import { defineCommand } from "../../core/define-command.js";
import { includeArg, outputArgs, refs } from "../../core/shared-args.js";
import { renderRecord } from "../../render/records.js";
import { modelNames } from "../../common/model-names.js";
import { idRef } from "../../../portable/names/resolve-ref.js";

/** Parses `--include model,lineage`. */
export function parseIncludes(text: string | undefined): RecordInclude[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
  for (const p of parts) {
    if (!RECORD_INCLUDES.includes(p as RecordInclude)) throw errors.usage(`--include ${p}: use ${RECORD_INCLUDES.join(", ")} (comma-separated)`);
  }
  return parts as RecordInclude[];
}

/** `ddsctl records get <recordId>`. */
export default defineCommand({
  command: "records get",
  description: "show one record: freshness, resolved data, issues (--include model,lineage for more)",
  examples: ["ddsctl records get <recordId>", "ddsctl records get <recordId> --include model,lineage --json"],
  args: { recordId: refs.record, include: includeArg, ...outputArgs },
  async handler(args, ctx) {
    const include = parseIncludes(args.include);
    const service = await ctx.service();
    const record = await service.getRecord(idRef("record", args.recordId), include ? { include } : undefined);
    await renderRecord(ctx.out, record, ctx.out.options.json || record.model ? undefined : await modelNames(service));
  },
});
