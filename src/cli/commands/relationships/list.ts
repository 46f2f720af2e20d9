import { defineCommand } from "../../core/define-command.js";
import { outputArgs, refs } from "../../core/shared-args.js";
import { relationshipColumns } from "../../render/evidence.js";
import { recordColumns } from "../../render/records.js";
import { modelNames } from "../../common/model-names.js";

/** `ddsctl relationships list <recordId> [name]`. */
export default defineCommand({
  command: "relationships list",
  description: "list a record's links, or with a relationship name the records it connects to",
  examples: ["ddsctl relationships list <recordId>", "ddsctl relationships list <recordId> applicants --json"],
  args: { recordId: { ...refs.record, description: "the source record" }, name: { type: "string", positional: true, description: "a relationship name: list the connected records" }, ...outputArgs },
  async handler(args, ctx) {
    const service = await ctx.service();
    const { out } = ctx;
    if (args.name === undefined) {
      const links = await service.listRelationships(args.recordId);
      if (out.options.json) return out.json(links);
      return out.table(links.data, relationshipColumns(), "relationships");
    }
    const related = await service.listRelatedRecords(args.recordId, args.name);
    if (out.options.json) return out.json(related);
    out.table(related.data, related.data.length === 0 ? [] : recordColumns(out, await modelNames(service)), "related records");
  },
});
