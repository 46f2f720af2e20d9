import { defineCommand } from "../../command.js";
import { relationshipColumns } from "../../render/evidence.js";
import { recordColumns } from "../../render/records.js";
import { modelNames } from "../records/model-names.js";

/** `ddsctl relationships list <recordId> [name]`. */
export default defineCommand({
  path: ["relationships", "list"],
  description: "list a record's links, or with a relationship name the records it connects to",
  examples: ["ddsctl relationships list <recordId>", "ddsctl relationships list <recordId> applicants --json"],
  configure: (cmd) => cmd.argument("<recordId>", "the source record").argument("[name]", "a relationship name: list the connected records"),
  async run(ctx, [id, name]) {
    const service = await ctx.service();
    if (name === undefined) {
      const links = await service.listRelationships(id);
      if (ctx.out.options.json) return ctx.out.json(links);
      return ctx.out.table(links.data, relationshipColumns());
    }
    const related = await service.listRelatedRecords(id, name);
    if (ctx.out.options.json) return ctx.out.json(related);
    await ctx.out.table(related.data, recordColumns(ctx.out, await modelNames(service)));
  },
});
