import { errors } from "../../../contract/errors.js";
import { bodyFrom } from "../../body.js";
import { defineCommand } from "../../command.js";
import { renderModel } from "../../render/models.js";

/** `ddsctl models create -f model.json`. */
export default defineCommand({
  path: ["models", "create"],
  description: "create a model (draft) with its fields in one transaction",
  examples: [
    `echo '{"name":"Loan","fields":[{"name":"amount","type":"number"}]}' | ddsctl models create -f - --json`,
    "ddsctl models create -f fixtures/mortgage/models/loan.json",
  ],
  configure: (cmd) =>
    cmd
      .option("-f, --file <path|->", "the POST /models body as JSON (- reads stdin)")
      .option("--name <name>", "model name (overrides the body)")
      .option("--description <text>", "description (overrides the body)"),
  async run(ctx, _args, flags) {
    if (!flags.file && !flags.name) {
      throw errors.usage("give the model as -f <file|-> (the POST /models body); see --help");
    }
    const body = await bodyFrom(flags.file as string | undefined, { name: flags.name, description: flags.description });
    if (!flags.file) body.fields ??= [];
    const model = await (await ctx.service()).createModel(body as never);
    await renderModel(ctx.out, model);
  },
});
