import { errors } from "../../../contract/errors.js";
import { bodyFrom } from "../../body.js";
import { defineCommand } from "../../command.js";
import { renderModel } from "../../render/models.js";
import { isInteractive } from "../init/interactive.js";

/** `ddsctl models create -f model.json`, or a wizard on a terminal. */
export default defineCommand({
  path: ["models", "create"],
  description: "create a model (draft) with its fields in one transaction; without -f on a terminal, a wizard asks for it",
  examples: [
    `echo '{"name":"Loan","fields":[{"name":"amount","type":"number"}]}' | ddsctl models create -f - --json`,
    "ddsctl models create   # on a terminal: asks for the name, fields and identity",
  ],
  configure: (cmd) =>
    cmd
      .option("-f, --file <path|->", "the POST /models body as JSON (- reads stdin)")
      .option("--name <name>", "model name (overrides the body)")
      .option("--description <text>", "description (overrides the body)"),
  async run(ctx, _args, flags) {
    let body: Record<string, unknown>;
    if (!flags.file && !flags.name) {
      if (!isInteractive()) throw errors.usage("give the model as -f <file|-> (the POST /models body); the wizard needs a terminal. See --help");
      const { askModel, wizardBody } = await import("./model-wizard.js");
      body = wizardBody(await askModel());
    } else {
      body = await bodyFrom(flags.file as string | undefined, { name: flags.name, description: flags.description });
      if (!flags.file) body.fields ??= [];
    }
    const model = await (await ctx.service()).createModel(body as never);
    await renderModel(ctx.out, model);
    if (!flags.file && !flags.name) ctx.out.info(ctx.out.c.dim(`a draft: activate it with ddsctl models status ${model.name} active`));
  },
});
