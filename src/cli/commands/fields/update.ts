import { errors } from "../../../contract/errors.js";
import { readBody } from "../../document-input.js";
import { defineCommand } from "../../core/define-command.js";
import { fileArg, outputArgs, waitArgs } from "../../core/shared-args.js";
import { renderField } from "../../render/models.js";
import { drainPipeline } from "../../common/drain.js";
import { fieldRef, fieldRefArgs } from "./field-ref.js";

/** `ddsctl fields update <model> <field> -f field.json` (PUT: replaces mutable properties). */
export default defineCommand({
  command: "fields update",
  description: "replace a field's mutable properties (PUT); renaming keeps its fieldId",
  examples: [
    `echo '{"name":"loanAmount","type":"number"}' | ddsctl fields update Loan amount -f -`,
    "ddsctl fields update 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 -f field.json --json",
  ],
  args: { ...fieldRefArgs, ...fileArg("the full field body"), ...waitArgs, ...outputArgs },
  writes: true,
  async handler(args, ctx) {
    if (!args.file) throw errors.usage("give the new field definition with -f <file|->");
    const body = await readBody(ctx.io, args.file);
    const service = await ctx.service();
    const ref = await fieldRef(service, args.model, args.field);
    renderField(
      ctx.out,
      "fieldId" in ref ? await service.replaceField(ref.fieldId, body as never) : await service.replaceModelField(ref.modelId, ref.name, body as never),
    );
    await drainPipeline(ctx, args);
  },
});
