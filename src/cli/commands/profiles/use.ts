import { errors } from "../../../contract/errors.js";
import { readConfig, writeConfig } from "../../config.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs } from "../../core/shared-args.js";
import { describeProfile, profileView } from "./profile-view.js";

/** `ddsctl profiles use <name>`. */
export default defineCommand({
  command: "profiles use",
  description: "make a saved profile the current one (flags and DDS_* variables still take precedence)",
  examples: ["ddsctl profiles use staging"],
  args: { name: { type: "string", positional: true, required: true, description: "the profile" }, ...reportArgs },
  async handler(args, ctx) {
    const { name } = args;
    const config = readConfig(ctx.io.env);
    const profile = config.profiles[name];
    if (!profile) throw errors.notFound("profile", name);
    config.current = name;
    writeConfig(ctx.io.env, config);
    const { out } = ctx;
    if (out.options.json) return out.json(profileView(name, profile, name));
    out.line(`now using profile ${name}: ${describeProfile(profile)}`);
  },
});
