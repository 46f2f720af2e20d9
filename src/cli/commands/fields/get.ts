import { defineCommand } from "../../core/define-command.js";
import { outputArgs } from "../../core/shared-args.js";
import { renderField } from "../../render/models.js";
import { fieldRef, fieldRefArgs } from "./field-ref.js";

/** `ddsctl fields get <model> <field>` or `ddsctl fields get <fieldId>`. */
export default defineCommand({
  command: "fields get",
  description: "show one field, by model and name or by fieldId",
  examples: ["ddsctl fields get Loan amount", "ddsctl fields get 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --json"],
  args: { ...fieldRefArgs, ...outputArgs },
  async handler(args, ctx) {
    const service = await ctx.service();
    const ref = await fieldRef(service, args.model, args.field);
    renderField(ctx.out, "fieldId" in ref ? await service.getField(ref.fieldId) : await service.getModelField(ref.modelId, ref.name));
  },
});
