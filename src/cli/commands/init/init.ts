import { resolve } from "node:path";
import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../command.js";
import { readConfig, writeConfig, type Profile } from "../../config.js";
import { openService } from "../../service-factory.js";
import { DEFAULT_DB } from "../../target.js";
import { verifyRemote } from "../login/verify-remote.js";
import { describeProfile, profileView } from "../profiles/profile-view.js";
import { checkProfileName, flagOrPrompt, loadPrompts } from "./interactive.js";

/** Asks (or takes from flags) what a local profile needs, and creates the database. */
async function localProfile(flags: Record<string, unknown>, yes: boolean): Promise<Profile> {
  const db = await flagOrPrompt({
    value: flags.db as string | undefined,
    flag: "--db",
    yes,
    fallback: DEFAULT_DB,
    ask: async () => (await loadPrompts()).input({ message: "Database file", default: DEFAULT_DB }),
  });
  // Stored absolute: a profile is global, and a relative path would name another file in every directory.
  const path = resolve(db);
  const service = await openService({ mode: "local", db: path, workspace: "default", source: "init" });
  await service.close();
  return { mode: "local", db: path };
}

/** Asks (or takes from flags) the base URL and token of a remote profile, and checks them. */
async function remoteProfile(flags: Record<string, unknown>, yes: boolean): Promise<Profile> {
  const baseUrl = await flagOrPrompt({
    value: flags.url as string | undefined,
    flag: "--url",
    yes,
    ask: async () => (await loadPrompts()).input({ message: "Base URL of the service (e.g. http://127.0.0.1:8080/v1)", required: true }),
  });
  const token = await flagOrPrompt({
    value: flags.token as string | undefined,
    flag: "--token",
    yes,
    ask: async () => (await loadPrompts()).password({ message: "API token", mask: true }),
  });
  await verifyRemote(baseUrl, token);
  return { mode: "remote", baseUrl, token };
}

/** `ddsctl init`: create a profile (local database or remote service) and make it current. */
export default defineCommand({
  path: ["init"],
  description: "set ddsctl up: a local database or a remote service, saved as a profile and made current (asks on a terminal; flags in CI)",
  examples: [
    "ddsctl init",
    "ddsctl init --mode local --db .dds/dds.db --yes",
    "ddsctl init --mode remote --url http://127.0.0.1:8080/v1 --token $DDS_API_TOKEN --profile-name staging",
  ],
  configure: (cmd) =>
    cmd
      .option("--mode <mode>", "local (an embedded SQLite database) or remote (a service over HTTP)")
      .option("--db <path>", `local: the database file (default ${DEFAULT_DB}, stored as an absolute path)`)
      .option("--url <url>", "remote: the service's base URL")
      .option("--profile-name <name>", "the profile to save", "default")
      .option("--yes", "ask nothing: take flags and defaults")
      .addHelpText("after", "\nRemote mode takes the token from the global --token option (checked with GET /models)."),
  async run(ctx, _args, flags) {
    const yes = Boolean(flags.yes);
    const name = checkProfileName(flags.profileName as string);
    const mode = await flagOrPrompt({
      value: flags.mode as string | undefined,
      flag: "--mode",
      yes,
      fallback: "local",
      ask: async () =>
        (await loadPrompts()).select({
          message: "Where should ddsctl work?",
          choices: [
            { name: "local: an embedded SQLite database on this machine", value: "local" },
            { name: "remote: a service over HTTP (e.g. ddsctl serve)", value: "remote" },
          ],
        }),
    });
    if (mode !== "local" && mode !== "remote") throw errors.usage(`--mode must be local or remote, got "${mode}"`);
    const profile = mode === "local" ? await localProfile(flags, yes) : await remoteProfile(flags, yes);
    const config = readConfig();
    const replaced = config.profiles[name] !== undefined;
    config.profiles[name] = profile;
    config.current = name;
    writeConfig(config);
    const { out } = ctx;
    if (out.options.json) return out.json(profileView(name, profile, name));
    out.line(`profile ${name} ${replaced ? "updated" : "saved"}: ${describeProfile(profile)} (current)`);
    out.info(out.c.dim("try: ddsctl demo"));
  },
});
