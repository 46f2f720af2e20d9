import { errors } from "../../../contract/errors.js";
import { bodyFrom } from "../../body.js";
import { defineCommand } from "../../command.js";
import { renderField } from "../../render/models.js";
import { resolveModelId } from "../../resolve.js";

/** `ddsctl fields add <model> -f field.json` (POST /models/{id}/fields). */
export default defineCommand({
  path: ["fields", "add"],
  description: "add a field to a draft or active model",
  examples: [
    "ddsctl fields add Loan --name term --type integer --required",
    `echo '{"name":"purpose","type":"enum","validation":{"values":["purchase","refinance"]}}' | ddsctl fields add Loan -f -`,
  ],
  configure: (cmd) =>
    cmd
      .argument("<model>", "model name or modelId")
      .option("-f, --file <path|->", "the field body as JSON (- reads stdin)")
      .option("--name <name>", "field name")
      .option("--type <type>", "string, number, integer, boolean, date, datetime, enum or json")
      .option("--required", "the field is required"),
  async run(ctx, [ref], flags) {
    if (!flags.file && !flags.name) throw errors.usage("give the field as -f <file|-> or with --name and --type");
    const body = await bodyFrom(flags.file as string | undefined, { name: flags.name, type: flags.type, required: flags.required });
    const service = await ctx.service();
    renderField(ctx.out, await service.createField(await resolveModelId(service, ref), body as never));
  },
});
