import { defineCommand } from "../../core/define-command.js";
import { filterExample } from "../../core/list-args.js";
import { listArgs, refFlags } from "../../core/shared-args.js";
import { collectPages, listQueryFrom, renderPage } from "../../list-options.js";
import { scopeFilters } from "../../../portable/names/resolve-ref.js";
import { contributionColumns } from "../../render/evidence.js";
import { modelNames } from "../../common/model-names.js";

/** `ddsctl contributions list`. */
export default defineCommand({
  command: "contributions list",
  description: "list contributions (filter: contextId, modelId, recordId, sourceId, sourceType, status, receivedAt)",
  examples: ["ddsctl contributions list --context case-42", filterExample("contributions list", "contributions"), "ddsctl contributions list --filter recordId=<recordId> --filter status=superseded --json"],
  args: {
    context: { ...refFlags.context, description: "only this context's contributions (name or contextId)" },
    model: { ...refFlags.model, description: "only this model's (name or modelId)" },
    ...listArgs("contributions"),
  },
  async handler(args, ctx) {
    const service = await ctx.service();
    const page = await collectPages(args, listQueryFrom(args, "contributions", await scopeFilters(service, args)), (q) => service.listContributions(q));
    await renderPage(ctx.out, page, page.data, async () => contributionColumns(ctx.out, await modelNames(service)), "contributions");
  },
});
