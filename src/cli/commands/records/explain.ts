import { defineCommand } from "../../command.js";
import { renderExplain } from "../../render/lineage.js";

/** `ddsctl records explain <recordId> [field]`. */
export default defineCommand({
  path: ["records", "explain"],
  description: "show why a record has its values: per field the winning contribution, source, confidence, policy and candidates",
  examples: ["ddsctl records explain <recordId>", "ddsctl records explain <recordId> amount", "ddsctl records explain <recordId> --json"],
  configure: (cmd) => cmd.argument("<recordId>").argument("[field]", "one field, in detail"),
  async run(ctx, [id, field]) {
    const record = await (await ctx.service()).getRecord(id, { include: ["model", "lineage"] });
    await renderExplain(ctx.out, record, field);
  },
});
