import { resolve } from "node:path";
import { errors } from "../../../contract/errors.js";
import { readConfig, writeConfig, type Profile } from "../../config.js";
import { isInteractive } from "../../core/context.js";
import { defineCommand, type CommandContext } from "../../core/define-command.js";
import { reportArgs, yesArgs } from "../../core/shared-args.js";
import { openService } from "../../service-factory.js";
import { DEFAULT_DB } from "../../target.js";
import { checkWorkspaceName, DEFAULT_WORKSPACE } from "../../../contract/workspace.js";
import { verifyRemote } from "../login/verify-remote.js";
import { describeProfile, profileView } from "../profiles/profile-view.js";
import { checkProfileName, flagOrPrompt, loadPrompts } from "./interactive.js";

interface InitFlags {
  db?: string;
  url?: string;
  yes: boolean;
}

/** Asks (or takes from flags) what a local profile needs, and creates the database. */
async function localProfile(ctx: CommandContext, flags: InitFlags): Promise<Profile> {
  const db = await flagOrPrompt({
    interactive: isInteractive(ctx.io),
    value: flags.db,
    flag: "--db",
    yes: flags.yes,
    fallback: DEFAULT_DB,
    ask: async () => (await loadPrompts()).input({ message: "Database file", default: DEFAULT_DB }),
  });
  // Stored absolute: a profile is global, and a relative path would name another file in every directory.
  const path = resolve(db);
  // --workspace is remembered: every command through this profile then works in it.
  const workspace = ctx.globals.workspace === undefined ? undefined : checkWorkspaceName(ctx.globals.workspace);
  const service = await openService({ mode: "local", db: path, workspace: workspace ?? DEFAULT_WORKSPACE, source: "init" }, { env: ctx.io.env });
  await service.close();
  return workspace === undefined ? { mode: "local", db: path } : { mode: "local", db: path, workspace };
}

/** Asks (or takes from flags) the base URL and token of a remote profile, and checks them. */
async function remoteProfile(ctx: CommandContext, flags: InitFlags): Promise<Profile> {
  const interactive = isInteractive(ctx.io);
  const baseUrl = await flagOrPrompt({
    interactive,
    value: flags.url,
    flag: "--url",
    yes: flags.yes,
    ask: async () => (await loadPrompts()).input({ message: "Base URL of the service (e.g. http://127.0.0.1:8080/v1)", required: true }),
  });
  const token = await flagOrPrompt({
    interactive,
    value: ctx.globals.token,
    flag: "--token",
    yes: flags.yes,
    ask: async () => (await loadPrompts()).password({ message: "API token", mask: true }),
  });
  await verifyRemote(baseUrl, token);
  return { mode: "remote", baseUrl, token };
}

/** `ddsctl init`: create a profile (local database or remote service) and make it current. */
export default defineCommand({
  command: "init",
  description: "set ddsctl up: a local database or a remote service, saved as a profile and made current (asks on a terminal; flags in CI)",
  examples: [
    "ddsctl init",
    "ddsctl init --mode local --db .dds/dds.db --yes",
    "ddsctl init --mode remote --url http://127.0.0.1:8080/v1 --token $DDS_API_TOKEN --profile-name staging",
  ],
  args: {
    mode: { type: "string", description: "local (an embedded SQLite database) or remote (a service over HTTP)" },
    db: { type: "string", placeholder: "path", complete: "file", description: `local: the database file (default ${DEFAULT_DB}, stored as an absolute path)` },
    url: { type: "string", description: "remote: the service's base URL" },
    profileName: { type: "string", placeholder: "name", default: "default", description: "the profile to save" },
    yes: { ...yesArgs.yes, description: "ask nothing: take flags and defaults" },
    ...reportArgs,
  },
  help: "Remote mode takes the token from the global --token option (checked with GET /models).",
  writes: true,
  async handler(args, ctx) {
    const name = checkProfileName(args.profileName);
    const mode = await flagOrPrompt({
      interactive: isInteractive(ctx.io),
      value: args.mode,
      flag: "--mode",
      yes: args.yes,
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
    const profile = mode === "local" ? await localProfile(ctx, args) : await remoteProfile(ctx, args);
    const config = readConfig(ctx.io.env);
    const replaced = config.profiles[name] !== undefined;
    config.profiles[name] = profile;
    config.current = name;
    writeConfig(ctx.io.env, config);
    const { out } = ctx;
    if (out.options.json) return out.json(profileView(name, profile, name));
    out.line(`profile ${name} ${replaced ? "updated" : "saved"}: ${describeProfile(profile)} (current)`);
    out.info(out.c.dim("try: npx ddsctl demo"));
  },
});
