import { defineCommand } from "../../core/define-command.js";
import { filterExample } from "../../core/list-args.js";
import { listArgs, refs } from "../../core/shared-args.js";
import { collectPages, listQueryFrom, renderPage } from "../../list-options.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { fieldColumns } from "../../render/models.js";

/** `ddsctl fields list [model]`. */
export default defineCommand({
  command: "fields list",
  description: "list fields of one model, or across models (filter: modelId, name, type, required)",
  examples: ["ddsctl fields list Loan", filterExample("fields list", "fields"), "ddsctl fields list --filter type=number --json"],
  args: { model: { ...refs.model, required: false }, ...listArgs("fields") },
  async handler(args, ctx) {
    const service = await ctx.service();
    // Like GET /models/{id}/fields, an unknown model is a 404, not an empty list.
    const modelId = args.model ? (await service.getModel(await resolveRef(service, "model", args.model))).modelId : undefined;
    const extra = modelId ? [{ field: "modelId", op: "eq" as const, value: modelId }] : [];
    const page = await collectPages(args, listQueryFrom(args, "fields", extra), (q) => service.listFields(q));
    await renderPage(ctx.out, page, page.data, () => fieldColumns(), "fields");
  },
});
