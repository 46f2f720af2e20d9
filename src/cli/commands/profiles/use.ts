import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../command.js";
import { readConfig, writeConfig } from "../../config.js";
import { describeProfile, profileView } from "./profile-view.js";

/** `ddsctl profiles use <name>`. */
export default defineCommand({
  path: ["profiles", "use"],
  description: "make a saved profile the current one (flags and DDS_* variables still take precedence)",
  examples: ["ddsctl profiles use staging"],
  configure: (cmd) => cmd.argument("<name>", "the profile"),
  async run(ctx, [name]) {
    const config = readConfig();
    const profile = config.profiles[name];
    if (!profile) throw errors.notFound("profile", name);
    config.current = name;
    writeConfig(config);
    const { out } = ctx;
    if (out.options.json) return out.json(profileView(name, profile, name));
    out.line(`now using profile ${name}: ${describeProfile(profile)}`);
  },
});
