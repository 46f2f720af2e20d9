import { configPath, readConfig } from "../../config.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs } from "../../core/shared-args.js";
import { profileView } from "./profile-view.js";

/** `ddsctl profiles list`. */
export default defineCommand({
  command: "profiles list",
  description: "list saved profiles: name, mode, target and which is current (tokens are never shown)",
  examples: ["ddsctl profiles list", "ddsctl profiles list --json"],
  args: { ...reportArgs },
  async handler(_args, ctx) {
    const config = readConfig(ctx.io.env);
    const rows = Object.entries(config.profiles)
      .map(([name, p]) => profileView(name, p, config.current))
      .sort((a, b) => a.name.localeCompare(b.name));
    const { out } = ctx;
    if (out.options.json) return out.json({ current: config.current ?? null, profiles: rows });
    if (rows.length === 0) {
      out.info(`no profiles in ${configPath(ctx.io.env)}; create one with ddsctl init or ddsctl login`);
      return;
    }
    out.table(rows, [
      { header: "NAME", get: (r) => r.name },
      { header: "MODE", get: (r) => r.mode },
      { header: "TARGET", get: (r) => r.target },
      { header: "CURRENT", get: (r) => (r.current ? "*" : ""), style: (t) => out.c.green(t) },
    ]);
  },
});
