import { defineCommand } from "../../command.js";
import { configPath, readConfig } from "../../config.js";
import { profileView } from "./profile-view.js";

/** `ddsctl profiles list`. */
export default defineCommand({
  path: ["profiles", "list"],
  description: "list saved profiles: name, mode, target and which is current (tokens are never shown)",
  examples: ["ddsctl profiles list", "ddsctl profiles list --json"],
  async run(ctx) {
    const config = readConfig();
    const rows = Object.entries(config.profiles)
      .map(([name, p]) => profileView(name, p, config.current))
      .sort((a, b) => a.name.localeCompare(b.name));
    const { out } = ctx;
    if (out.options.json) return out.json({ current: config.current ?? null, profiles: rows });
    if (rows.length === 0) {
      out.info(`no profiles in ${configPath()}; create one with ddsctl init or ddsctl login`);
      return;
    }
    await out.table(rows, [
      { header: "NAME", get: (r) => r.name },
      { header: "MODE", get: (r) => r.mode },
      { header: "TARGET", get: (r) => r.target },
      { header: "CURRENT", get: (r) => (r.current ? "*" : ""), style: (t) => out.c.green(t) },
    ]);
  },
});
