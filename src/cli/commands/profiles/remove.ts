import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../command.js";
import { readConfig, writeConfig } from "../../config.js";

/** `ddsctl profiles remove <name>`. */
export default defineCommand({
  path: ["profiles", "remove"],
  description: "delete a saved profile (and its stored token); the data it points at is left alone",
  examples: ["ddsctl profiles remove staging"],
  configure: (cmd) => cmd.argument("<name>", "the profile"),
  async run(ctx, [name]) {
    const config = readConfig();
    if (!config.profiles[name]) throw errors.notFound("profile", name);
    delete config.profiles[name];
    const wasCurrent = config.current === name;
    if (wasCurrent) delete config.current;
    writeConfig(config);
    const { out } = ctx;
    if (out.options.json) return out.json({ removed: name, current: config.current ?? null });
    out.line(`removed profile ${name}`);
    if (wasCurrent) out.info(out.c.dim("it was the current profile; without one, commands use ./.dds/dds.db (see ddsctl profiles use)"));
  },
});
