import { errors } from "../../../contract/errors.js";
import { readStdin } from "../../body.js";
import { defineCommand } from "../../command.js";
import { readConfig, writeConfig } from "../../config.js";
import { checkProfileName, isInteractive, loadPrompts } from "../init/interactive.js";
import { profileView } from "../profiles/profile-view.js";
import { verifyRemote } from "./verify-remote.js";

/** The token: --token, --token-stdin, or a hidden prompt on a terminal. */
async function readToken(flags: Record<string, unknown>): Promise<string> {
  if (flags.token !== undefined && flags.tokenStdin) throw errors.usage("give the token once: --token or --token-stdin");
  if (flags.token !== undefined) return flags.token as string;
  if (flags.tokenStdin) {
    const token = (await readStdin()).trim();
    if (!token) throw errors.usage("--token-stdin read an empty token");
    return token;
  }
  if (isInteractive()) return (await loadPrompts()).password({ message: "API token", mask: true });
  throw errors.usage("no token: pass --token <token> or pipe it with --token-stdin (there is no terminal to ask on)");
}

/** `ddsctl login`: check a token against a remote service and save it in a profile. */
export default defineCommand({
  path: ["login"],
  description: "save a remote service's URL and API token as a profile (checked with GET /models first) and make it current",
  examples: [
    "ddsctl login --url http://127.0.0.1:8080/v1",
    "echo $DDS_API_TOKEN | ddsctl login --url https://dds.example.com/v1 --token-stdin --profile-name prod",
    "ddsctl login --url http://127.0.0.1:8080/v1 --token <token> --json",
  ],
  configure: (cmd) =>
    cmd
      .option("--url <url>", "the service's base URL (default: the profile's, when it has one)")
      .option("--token-stdin", "read the token from standard input")
      .option("--profile-name <name>", "the profile to save", "default")
      .addHelpText("after", "\nThe token comes from the global --token option, --token-stdin, or a hidden prompt on a terminal."),
  async run(ctx, _args, flags) {
    const name = checkProfileName(flags.profileName as string);
    const config = readConfig();
    const previous = config.profiles[name];
    let baseUrl = (flags.url as string | undefined) ?? (previous?.mode === "remote" ? previous.baseUrl : undefined);
    if (baseUrl === undefined) {
      if (!isInteractive()) throw errors.usage("no service URL: pass --url <base URL>, e.g. --url http://127.0.0.1:8080/v1");
      baseUrl = await (await loadPrompts()).input({ message: "Base URL of the service (e.g. http://127.0.0.1:8080/v1)", required: true });
    }
    const token = await readToken(flags);
    await verifyRemote(baseUrl, token);
    const profile = { mode: "remote" as const, baseUrl, token };
    config.profiles[name] = profile;
    config.current = name;
    writeConfig(config);
    const { out } = ctx;
    if (out.options.json) return out.json(profileView(name, profile, name));
    out.line(`logged in to ${baseUrl}: profile ${name} saved (current)`);
  },
});
