import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs, refs } from "../../core/shared-args.js";
import { renderRecordExplanation } from "../../workbench/explain/render-lineage.js";
import { idRef } from "../../../portable/names/resolve-ref.js";
import { LineageReader } from "../../../portable/workbench/trace/lineage-reader.js";
import { explainRecordFields } from "../../../portable/workbench/explain/record-explain.js";

/** `ddsctl records explain <recordId> [field]`. */
export default defineCommand({
  command: "records explain",
  description:
    "show why a record has its values: per field every candidate contribution (superseded ones too), which the policy picked and why; computed fields with what they read",
  examples: ["ddsctl records explain <recordId>", "ddsctl records explain <recordId> creditScore", "ddsctl records explain <recordId> --json"],
  args: { recordId: refs.record, field: { type: "string", positional: true, description: "one field only" }, ...reportArgs },
  async handler(args, ctx) {
    const service = await ctx.service();
    const record = await service.getRecord(idRef("record", args.recordId), { include: ["model", "lineage"] });
    if (args.field !== undefined && !record.model?.fields.some((f) => f.name === args.field)) throw errors.notFound("field", `${args.field} on record ${record.recordId}`);
    const explanation = await explainRecordFields(new LineageReader(service), record, args.field);
    if (ctx.out.options.json) return ctx.out.json(explanation);
    renderRecordExplanation(ctx.out, explanation);
  },
});
