import { defineCommand } from "../../command.js";
import { withTokenStore } from "./token-store.js";

const collect = (v: string, prev: string[] = []) => [...prev, ...v.split(",")];

/** `ddsctl tokens create`. */
export default defineCommand({
  path: ["tokens", "create"],
  description: "issue an API token for a workspace (printed once; only its SHA-256 is stored)",
  examples: [
    "ddsctl tokens create --workspace acme --scope write --name importer",
    "ddsctl --local /srv/dds.db tokens create --workspace acme --scope admin --json",
  ],
  configure: (cmd) =>
    cmd
      .requiredOption("--scope <scope>", "read, write (implies read) or admin (implies write); repeatable", collect)
      .option("--workspace <name>", "the workspace the token acts in (created if new)", "default")
      .option("--name <name>", "a label to recognise the token by in tokens list"),
  async run(ctx, _args, flags) {
    const { issueToken } = await import("../../../engine/auth/index.js");
    const issued = await withTokenStore(ctx, (store) =>
      issueToken(store, { workspace: flags.workspace as string, scopes: flags.scope as string[], name: flags.name as string | undefined }),
    );
    const { out } = ctx;
    if (out.options.json) return out.json(issued);
    out.fields([
      ["tokenId", issued.tokenId],
      ["workspace", issued.workspace],
      ["scopes", issued.scopes.join(", ")],
      ["token", issued.token],
    ]);
    out.info(out.c.yellow("store the token now: it is shown only once (use it with --token or DDS_API_TOKEN)"));
  },
});
