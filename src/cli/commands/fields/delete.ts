import { defineCommand } from "../../core/define-command.js";
import { waitArgs, yesArgs } from "../../core/shared-args.js";
import { drainPipeline } from "../../common/drain.js";
import { fieldRef, fieldRefArgs } from "./field-ref.js";

/** `ddsctl fields delete <model> <field>` or `<fieldId>`. */
export default defineCommand({
  command: "fields delete",
  description: "remove a field (soft on active models: existing contributions are kept)",
  examples: ["ddsctl fields delete Loan purpose", "ddsctl fields delete Loan purpose --yes"],
  args: { ...fieldRefArgs, ...yesArgs, ...waitArgs },
  writes: true,
  async handler(args, ctx) {
    const service = await ctx.service();
    const ref = await fieldRef(service, args.model, args.field);
    const label = [args.model, args.field].filter(Boolean).join(" ");
    await ctx.confirm(`Delete field ${label}?`, args.yes);
    if ("fieldId" in ref) await service.deleteField(ref.fieldId);
    else await service.deleteModelField(ref.modelId, ref.name);
    if (!ctx.out.options.json) ctx.out.info(`deleted field ${label}`);
    await drainPipeline(ctx, args);
  },
});
