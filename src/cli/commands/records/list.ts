import { defineCommand } from "../../core/define-command.js";
import { filterExample } from "../../core/list-args.js";
import { listArgs, refFlags } from "../../core/shared-args.js";
import { collectPages, listQueryFrom, renderPage } from "../../list-options.js";
import { scopeFilters } from "../../../portable/names/resolve-ref.js";
import { recordColumns } from "../../render/records.js";
import { modelNames } from "../../common/model-names.js";

/** `ddsctl records list`. */
export default defineCommand({
  command: "records list",
  description: "list resolved records (filter: contextId, modelId, freshness, createdAt, updatedAt)",
  examples: ["ddsctl records list --context case-42", "ddsctl records list --context case-42 --model Applicant -o wide", filterExample("records list", "records")],
  args: {
    context: { ...refFlags.context, description: "only this context's records (name or contextId)" },
    model: { ...refFlags.model, description: "only this model's records (name or modelId)" },
    ...listArgs("records"),
  },
  async handler(args, ctx) {
    const service = await ctx.service();
    const page = await collectPages(args, listQueryFrom(args, "records", await scopeFilters(service, args)), (q) => service.listRecords(q));
    await renderPage(ctx.out, page, page.data, async () => recordColumns(ctx.out, await modelNames(service)), "records");
  },
});
