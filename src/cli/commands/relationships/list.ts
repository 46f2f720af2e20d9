import { errors } from "../../../contract/errors.js";
import { modelNames } from "../../common/model-names.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs, refFlags } from "../../core/shared-args.js";
import { idRef, resolveRef } from "../../../portable/names/resolve-ref.js";
import { relationshipColumns } from "../../render/evidence.js";
import { recordColumns } from "../../render/records.js";

/** `ddsctl relationships list <recordId> [name]`, or `--context <ctx>` for a case's whole graph. */
export default defineCommand({
  command: "relationships list",
  description: "list a record's links, with a relationship name the records it connects to, or with --context every link of a case (removed ones too)",
  examples: ["ddsctl relationships list <recordId>", "ddsctl relationships list <recordId> applicants --json", "ddsctl relationships list --context haddad-purchase"],
  args: {
    recordId: { type: "string", positional: true, description: "the source record" },
    name: { type: "string", positional: true, description: "a relationship name: list the connected records" },
    context: { ...refFlags.context, description: "every link between a context's records (name or contextId), removed ones marked" },
    ...reportArgs,
  },
  async handler(args, ctx) {
    const service = await ctx.service();
    const { out } = ctx;
    if (args.context !== undefined) {
      if (args.recordId !== undefined) throw errors.usage("give either a recordId or --context, not both");
      const links = await service.listContextRelationships(await resolveRef(service, "context", args.context));
      if (out.options.json) return out.json(links);
      return out.table(
        links.data,
        [
          { header: "SOURCE RECORD", get: (l) => l.sourceRecordId },
          { header: "NAME", get: (l) => l.relationshipName },
          { header: "TARGET RECORD", get: (l) => l.targetRecordId },
          { header: "CREATED", get: (l) => l.createdAt ?? "" },
          { header: "REMOVED", get: (l) => l.removedAt ?? "" },
        ],
        "relationships",
      );
    }
    if (args.recordId === undefined) throw errors.usage("name a record (relationships list <recordId>) or a context (--context <context>)");
    if (args.name === undefined) {
      const links = await service.listRelationships(idRef("record", args.recordId));
      if (out.options.json) return out.json(links);
      return out.table(links.data, relationshipColumns(), "relationships");
    }
    const related = await service.listRelatedRecords(idRef("record", args.recordId), args.name);
    if (out.options.json) return out.json(related);
    out.table(related.data, related.data.length === 0 ? [] : recordColumns(out, await modelNames(service)), "related records");
  },
});
