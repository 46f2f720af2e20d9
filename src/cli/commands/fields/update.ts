import { errors } from "../../../contract/errors.js";
import { readBody } from "../../body.js";
import { defineCommand } from "../../command.js";
import { renderField } from "../../render/models.js";
import { fieldRef } from "./field-ref.js";

/** `ddsctl fields update <model> <field> -f field.json` (PUT: replaces mutable properties). */
export default defineCommand({
  path: ["fields", "update"],
  description: "replace a field's mutable properties (PUT); renaming keeps its fieldId",
  examples: [
    `echo '{"name":"loanAmount","type":"number"}' | ddsctl fields update Loan amount -f -`,
    "ddsctl fields update 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 -f field.json --json",
  ],
  configure: (cmd) =>
    cmd.argument("<model|fieldId>").argument("[field]", "field name").option("-f, --file <path|->", "the full field body as JSON (- reads stdin)"),
  async run(ctx, args, flags) {
    if (!flags.file) throw errors.usage("give the new field definition with -f <file|->");
    const body = await readBody(flags.file as string);
    const service = await ctx.service();
    const ref = await fieldRef(service, args);
    renderField(
      ctx.out,
      "fieldId" in ref ? await service.replaceField(ref.fieldId, body as never) : await service.replaceModelField(ref.modelId, ref.name, body as never),
    );
  },
});
