import { errors } from "../../../contract/errors.js";
import { FIELD_TYPES } from "../../../contract/constants.js";
import { bodyFrom } from "../../document-input.js";
import { defineCommand } from "../../core/define-command.js";
import { fileArg, outputArgs, refs, waitArgs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderField } from "../../render/models.js";
import { drainPipeline } from "../../common/drain.js";

/** `ddsctl fields add <model> -f field.json` (POST /models/{id}/fields). */
export default defineCommand({
  command: "fields add",
  description: "add a field to a draft or active model (an active model's contexts are re-resolved before it returns)",
  examples: [
    "ddsctl fields add Loan --name term --type integer --required",
    `echo '{"name":"purpose","type":"enum","validation":{"values":["purchase","refinance"]}}' | ddsctl fields add Loan -f -`,
  ],
  args: {
    model: refs.model,
    ...fileArg("the field body"),
    name: { type: "string", description: "field name" },
    type: { type: "string", description: FIELD_TYPES.join(", ") },
    required: { type: "boolean", description: "the field is required" },
    ...waitArgs,
    ...outputArgs,
  },
  writes: true,
  async handler(args, ctx) {
    if (!args.file && !args.name) throw errors.usage("give the field as -f <file|-> or with --name and --type");
    const body = await bodyFrom(ctx.io, args.file, { name: args.name, type: args.type, required: args.required || undefined });
    const service = await ctx.service();
    renderField(ctx.out, await service.createField(await resolveRef(service, "model", args.model), body as never));
    await drainPipeline(ctx, args);
  },
});
