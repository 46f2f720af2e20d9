import { defineCommand } from "../../command.js";
import { collectPages, listQueryFrom, withListOptions, renderPage, type ListFlags } from "../../list-options.js";
import { fieldColumns } from "../../render/models.js";
import { resolveModelId } from "../../resolve.js";

/** `ddsctl fields list [model]`. */
export default defineCommand({
  path: ["fields", "list"],
  description: "list fields of one model, or across models (filter: modelId, name, type, required)",
  examples: ["ddsctl fields list Loan", "ddsctl fields list --filter type=number --json"],
  configure: (cmd) => withListOptions(cmd.argument("[model]", "model name or modelId")),
  async run(ctx, [ref], flags) {
    const service = await ctx.service();
    // Like GET /models/{id}/fields, an unknown model is a 404, not an empty list.
    const modelId = ref ? (await service.getModel(await resolveModelId(service, ref))).modelId : undefined;
    const extra = modelId ? [{ field: "modelId", op: "eq" as const, value: modelId }] : [];
    const page = await collectPages(flags as ListFlags, listQueryFrom(flags as ListFlags, extra), (q) => service.listFields(q));
    await renderPage(ctx.out, page, page.data, () => fieldColumns());
  },
});
