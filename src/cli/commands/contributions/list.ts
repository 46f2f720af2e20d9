import type { FilterClause } from "../../../contract/list-query.js";
import { defineCommand } from "../../command.js";
import { collectPages, listQueryFrom, withListOptions, renderPage, type ListFlags } from "../../list-options.js";
import { contributionColumns } from "../../render/evidence.js";
import { resolveModelId } from "../../resolve.js";
import { modelNames } from "../records/model-names.js";

/** `ddsctl contributions list`. */
export default defineCommand({
  path: ["contributions", "list"],
  description: "list contributions (filter: contextId, modelId, recordId, sourceId, sourceType, status, receivedAt)",
  examples: [
    "ddsctl contributions list --context <contextId>",
    "ddsctl contributions list --filter recordId=<recordId> --filter status=superseded --json",
  ],
  configure: (cmd) =>
    withListOptions(cmd.option("--context <contextId>", "only this context's contributions").option("--model <model>", "only this model's (name or modelId)")),
  async run(ctx, _args, flags) {
    const service = await ctx.service();
    const extra: FilterClause[] = [];
    if (flags.context) extra.push({ field: "contextId", op: "eq", value: flags.context as string });
    if (flags.model) extra.push({ field: "modelId", op: "eq", value: await resolveModelId(service, flags.model as string) });
    const page = await collectPages(flags as ListFlags, listQueryFrom(flags as ListFlags, extra), (q) => service.listContributions(q));
    await renderPage(ctx.out, page, page.data, async () => contributionColumns(ctx.out, await modelNames(service)));
  },
});
