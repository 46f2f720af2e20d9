import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../command.js";
import { renderRecordExplanation } from "../../render/lineage.js";

/** `ddsctl records explain <recordId> [field]`. */
export default defineCommand({
  path: ["records", "explain"],
  description:
    "show why a record has its values: per field every candidate contribution (superseded ones too), which the policy picked and why; computed fields with what they read",
  examples: ["ddsctl records explain <recordId>", "ddsctl records explain <recordId> creditScore", "ddsctl records explain <recordId> --json"],
  configure: (cmd) => cmd.argument("<recordId>").argument("[field]", "one field only"),
  async run(ctx, [id, field]) {
    const service = await ctx.service();
    const record = await service.getRecord(id, { include: ["model", "lineage"] });
    if (field !== undefined && !record.model?.fields.some((f) => f.name === field)) throw errors.notFound("field", `${field} on record ${record.recordId}`);
    const { LineageReader } = await import("../../workbench/lineage-reader.js");
    const { explainRecordFields } = await import("../../workbench/record-explain.js");
    const explanation = await explainRecordFields(new LineageReader(service), record, field);
    if (ctx.out.options.json) return ctx.out.json(explanation);
    renderRecordExplanation(ctx.out, explanation);
  },
});
