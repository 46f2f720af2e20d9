import { errors } from "../../../contract/errors.js";
import { readConfig, writeConfig } from "../../config.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs, yesArgs } from "../../core/shared-args.js";

/** `ddsctl profiles remove <name>`. */
export default defineCommand({
  command: "profiles remove",
  description: "delete a saved profile (and its stored token); the data it points at is left alone",
  examples: ["ddsctl profiles remove staging", "ddsctl profiles remove staging --yes"],
  args: { name: { type: "string", positional: true, required: true, description: "the profile" }, ...yesArgs, ...reportArgs },
  async handler(args, ctx) {
    const { name } = args;
    const config = readConfig(ctx.io.env);
    if (!config.profiles[name]) throw errors.notFound("profile", name);
    await ctx.confirm(`Remove profile ${name}?`, args.yes);
    delete config.profiles[name];
    const wasCurrent = config.current === name;
    if (wasCurrent) delete config.current;
    writeConfig(ctx.io.env, config);
    const { out } = ctx;
    if (out.options.json) return out.json({ removed: name, current: config.current ?? null });
    out.line(`removed profile ${name}`);
    if (wasCurrent) out.info(out.c.dim("it was the current profile; without one, commands use ./.dds/dds.db (see ddsctl profiles use)"));
  },
});
