import { errors } from "../../../contract/errors.js";
import { bodyFrom } from "../../document-input.js";
import { defineCommand } from "../../core/define-command.js";
import { fileArg, outputArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderModel } from "../../render/models.js";

/** `ddsctl models update <model> -f patch.json`. */
export default defineCommand({
  command: "models update",
  description: "change a model's name, description, relationships (and identity while draft)",
  examples: [`ddsctl models update Loan --description "Mortgage loan"`, `echo '{"name":"MortgageLoan"}' | ddsctl models update Loan -f - --json`],
  args: {
    model: refs.model,
    ...fileArg("the PATCH /models/{id} body"),
    name: { type: "string", description: "new name" },
    description: { type: "string", placeholder: "text", description: "new description" },
    ...outputArgs,
  },
  writes: true,
  async handler(args, ctx) {
    const body = await bodyFrom(ctx.io, args.file, { name: args.name, description: args.description });
    if (Object.keys(body).length === 0) throw errors.usage("nothing to change: give -f <file|-> or --name/--description");
    const service = await ctx.service();
    await renderModel(ctx.out, await service.updateModel(await resolveRef(service, "model", args.model), body as never));
  },
});
