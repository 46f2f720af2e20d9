import type { FilterClause } from "../../../contract/list-query.js";
import { defineCommand } from "../../command.js";
import { collectPages, listQueryFrom, withListOptions, renderPage, type ListFlags } from "../../list-options.js";
import { recordColumns } from "../../render/records.js";
import { resolveModelId } from "../../resolve.js";
import { modelNames } from "./model-names.js";

/** `ddsctl records list`. */
export default defineCommand({
  path: ["records", "list"],
  description: "list resolved records (filter: contextId, modelId, freshness, createdAt, updatedAt)",
  examples: ["ddsctl records list --context <contextId>", "ddsctl records list --context <contextId> --model Applicant --json"],
  configure: (cmd) =>
    withListOptions(cmd.option("--context <contextId>", "only this context's records").option("--model <model>", "only this model's records (name or modelId)")),
  async run(ctx, _args, flags) {
    const service = await ctx.service();
    const extra: FilterClause[] = [];
    if (flags.context) extra.push({ field: "contextId", op: "eq", value: flags.context as string });
    if (flags.model) extra.push({ field: "modelId", op: "eq", value: await resolveModelId(service, flags.model as string) });
    const page = await collectPages(flags as ListFlags, listQueryFrom(flags as ListFlags, extra), (q) => service.listRecords(q));
    await renderPage(ctx.out, page, page.data, async () => recordColumns(ctx.out, await modelNames(service)));
  },
});
