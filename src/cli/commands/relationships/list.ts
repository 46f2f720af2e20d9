import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../command.js";
import { relationshipColumns } from "../../render/evidence.js";
import { recordColumns } from "../../render/records.js";
import { resolveContextId } from "../../workbench/refs.js";
import { modelNames } from "../records/model-names.js";

/** `ddsctl relationships list <recordId> [name]`, or `--context <ctx>` for a case's whole graph. */
export default defineCommand({
  path: ["relationships", "list"],
  description: "list a record's links, with a relationship name the records it connects to, or with --context every link of a case (removed ones too)",
  examples: ["ddsctl relationships list <recordId>", "ddsctl relationships list <recordId> applicants --json", "ddsctl relationships list --context haddad-purchase"],
  configure: (cmd) =>
    cmd
      .argument("[recordId]", "the source record")
      .argument("[name]", "a relationship name: list the connected records")
      .option("--context <context>", "every link between a context's records (id or name), removed ones marked"),
  async run(ctx, [id, name], flags) {
    const service = await ctx.service();
    if (typeof flags.context === "string") {
      if (id !== undefined) throw errors.usage("give either a recordId or --context, not both");
      const links = await service.listContextRelationships(await resolveContextId(service, flags.context));
      if (ctx.out.options.json) return ctx.out.json(links);
      return ctx.out.table(links.data, [
        { header: "SOURCE RECORD", get: (l) => l.sourceRecordId },
        { header: "NAME", get: (l) => l.relationshipName },
        { header: "TARGET RECORD", get: (l) => l.targetRecordId },
        { header: "CREATED", get: (l) => l.createdAt ?? "" },
        { header: "REMOVED", get: (l) => l.removedAt ?? "" },
      ]);
    }
    if (id === undefined) throw errors.usage("name a record (relationships list <recordId>) or a context (--context <context>)");
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
