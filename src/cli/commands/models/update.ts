import { errors } from "../../../contract/errors.js";
import { bodyFrom } from "../../body.js";
import { defineCommand } from "../../command.js";
import { resolveModelId } from "../../resolve.js";
import { renderModel } from "../../render/models.js";

/** `ddsctl models update <model> -f patch.json`. */
export default defineCommand({
  path: ["models", "update"],
  description: "change a model's name, description, relationships (and identity while draft)",
  examples: [`ddsctl models update Loan --description "Mortgage loan"`, `echo '{"name":"MortgageLoan"}' | ddsctl models update Loan -f - --json`],
  configure: (cmd) =>
    cmd
      .argument("<model>", "model name or modelId")
      .option("-f, --file <path|->", "the PATCH /models/{id} body as JSON (- reads stdin)")
      .option("--name <name>", "new name")
      .option("--description <text>", "new description"),
  async run(ctx, [ref], flags) {
    const body = await bodyFrom(flags.file as string | undefined, { name: flags.name, description: flags.description });
    if (Object.keys(body).length === 0) throw errors.usage("nothing to change: give -f <file|-> or --name/--description");
    const service = await ctx.service();
    await renderModel(ctx.out, await service.updateModel(await resolveModelId(service, ref), body as never));
  },
});
