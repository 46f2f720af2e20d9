import { errors } from "../../../contract/errors.js";
import { bodyFrom } from "../../document-input.js";
import { isInteractive } from "../../core/context.js";
import { defineCommand } from "../../core/define-command.js";
import { fileArg, outputArgs } from "../../core/shared-args.js";
import { renderModel } from "../../render/models.js";
import { askModel, wizardBody } from "./model-wizard.js";

/** `ddsctl models create -f model.json`, or a wizard on a terminal. */
export default defineCommand({
  command: "models create",
  description: "create a model (draft) with its fields in one transaction; without -f on a terminal, a wizard asks for it",
  examples: [
    `echo '{"name":"Loan","fields":[{"name":"amount","type":"number"}]}' | ddsctl models create -f - --json`,
    "ddsctl models create   # on a terminal: asks for the name, fields and identity",
  ],
  args: {
    ...fileArg("the POST /models body"),
    name: { type: "string", description: "model name (overrides the body)" },
    description: { type: "string", placeholder: "text", description: "description (overrides the body)" },
    ...outputArgs,
  },
  writes: true,
  async handler(args, ctx) {
    let body: Record<string, unknown>;
    const wizard = !args.file && !args.name;
    if (wizard) {
      if (!isInteractive(ctx.io)) throw errors.usage("give the model as -f <file|-> (the POST /models body); the wizard needs a terminal. See --help");
      body = wizardBody(await askModel());
    } else {
      body = await bodyFrom(ctx.io, args.file, { name: args.name, description: args.description });
      if (!args.file) body.fields ??= [];
    }
    const model = await (await ctx.service()).createModel(body as never);
    await renderModel(ctx.out, model);
    if (wizard) ctx.out.info(ctx.out.c.dim(`a draft: activate it with ddsctl models status ${model.name} active`));
  },
});
