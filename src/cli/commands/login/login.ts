import { errors } from "../../../contract/errors.js";
import { readStdin } from "../../document-input.js";
import { isInteractive } from "../../core/context.js";
import { defineCommand, type CommandContext } from "../../core/define-command.js";
import { reportArgs } from "../../core/shared-args.js";
import { readConfig, writeConfig } from "../../config.js";
import { checkProfileName, loadPrompts } from "../init/interactive.js";
import { profileView } from "../profiles/profile-view.js";
import { verifyRemote } from "./verify-remote.js";

/** The token: --token, --token-stdin, or a hidden prompt on a terminal. */
async function readToken(ctx: CommandContext, tokenStdin: boolean): Promise<string> {
  const flag = ctx.globals.token;
  if (flag !== undefined && tokenStdin) throw errors.usage("give the token once: --token or --token-stdin");
  if (flag !== undefined) return flag;
  if (tokenStdin) {
    const token = (await readStdin(ctx.io)).trim();
    if (!token) throw errors.usage("--token-stdin read an empty token");
    return token;
  }
  if (isInteractive(ctx.io)) return (await loadPrompts()).password({ message: "API token", mask: true });
  throw errors.usage("no token: pass --token <token> or pipe it with --token-stdin (there is no terminal to ask on)");
}

/** `ddsctl login`: check a token against a remote service and save it in a profile. */
export default defineCommand({
  command: "login",
  description: "save a remote service's URL and API token as a profile (checked with GET /models first) and make it current",
  examples: [
    "ddsctl login --url http://127.0.0.1:8080/v1",
    "echo $DDS_API_TOKEN | ddsctl login --url https://dds.example.com/v1 --token-stdin --profile-name prod",
    "ddsctl login --url http://127.0.0.1:8080/v1 --token <token> --json",
  ],
  args: {
    url: { type: "string", description: "the service's base URL (default: the profile's, when it has one)" },
    tokenStdin: { type: "boolean", description: "read the token from standard input" },
    profileName: { type: "string", placeholder: "name", default: "default", description: "the profile to save" },
    ...reportArgs,
  },
  help: "The token comes from the global --token option, --token-stdin, or a hidden prompt on a terminal.",
  async handler(args, ctx) {
    const flags = args;
    const name = checkProfileName(args.profileName);
    const config = readConfig(ctx.io.env);
    const previous = config.profiles[name];
    let baseUrl = flags.url ?? (previous?.mode === "remote" ? previous.baseUrl : undefined);
    if (baseUrl === undefined) {
      if (!isInteractive(ctx.io)) throw errors.usage("no service URL: pass --url <base URL>, e.g. --url http://127.0.0.1:8080/v1");
      baseUrl = await (await loadPrompts()).input({ message: "Base URL of the service (e.g. http://127.0.0.1:8080/v1)", required: true });
    }
    const token = await readToken(ctx, args.tokenStdin);
    await verifyRemote(baseUrl, token);
    const profile = { mode: "remote" as const, baseUrl, token };
    config.profiles[name] = profile;
    config.current = name;
    writeConfig(ctx.io.env, config);
    const { out } = ctx;
    if (out.options.json) return out.json(profileView(name, profile, name));
    out.line(`logged in to ${baseUrl}: profile ${name} saved (current)`);
  },
});
