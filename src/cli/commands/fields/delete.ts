import { defineCommand } from "../../command.js";
import { fieldRef } from "./field-ref.js";

/** `ddsctl fields delete <model> <field>` or `<fieldId>`. */
export default defineCommand({
  path: ["fields", "delete"],
  description: "remove a field (soft on active models: existing contributions are kept)",
  examples: ["ddsctl fields delete Loan purpose"],
  configure: (cmd) => cmd.argument("<model|fieldId>").argument("[field]", "field name"),
  async run(ctx, args) {
    const service = await ctx.service();
    const ref = await fieldRef(service, args);
    if ("fieldId" in ref) await service.deleteField(ref.fieldId);
    else await service.deleteModelField(ref.modelId, ref.name);
    if (!ctx.out.options.json) ctx.out.info(`deleted field ${args.join(" ")}`);
  },
});
