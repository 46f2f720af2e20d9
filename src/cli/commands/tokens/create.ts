import { defineCommand } from "../../core/define-command.js";
import { outputArgs } from "../../core/shared-args.js";
import { withTokenStore } from "./token-store.js";

/** `ddsctl tokens create`. */
export default defineCommand({
  command: "tokens create",
  description: "issue an API token for a workspace (printed once; only its SHA-256 is stored)",
  examples: [
    "ddsctl tokens create --workspace default --scope write --name importer",
    "ddsctl --local /srv/dds.db tokens create --workspace acme --scope admin --json",
    "ddsctl tokens create --workspace acme --scope write --name nightly-load --rate 20000/min",
  ],
  args: {
    scope: { type: "strings", required: true, commaSeparated: true, description: "read, write (implies read) or admin (implies write); repeatable" },
    name: { type: "string", description: "a label to recognise the token by in tokens list" },
    rate: { type: "string", placeholder: "limit", description: "the token's own rate limit in cost units (50000/s, 6000/10s, 1000/1d; off for none); default: serve's --token-rate" },
    ...outputArgs,
  },
  help: "The token acts in the workspace --workspace (a global option) names, else DDS_WORKSPACE's or the profile's, else default (where the local database keeps its data); a new workspace is created.",
  writes: true,
  async handler(args, ctx) {
    // Lazy: engine code (node:crypto, the token cache) loads only for the token commands, never at start-up.
    const { issueToken } = await import("../../../engine/auth/index.js");
    const issued = await withTokenStore(ctx, true, (store, workspace) => issueToken(store, { workspace, scopes: args.scope, name: args.name, rate: args.rate }));
    const { out } = ctx;
    if (out.options.json) return out.json(issued);
    out.fields([
      ["tokenId", issued.tokenId],
      ["workspace", issued.workspace],
      ["scopes", issued.scopes.join(", ")],
      ["rate", issued.rateLimit ?? "default (serve's --token-rate)"],
      ["token", issued.token],
    ]);
    out.info(out.c.yellow("store the token now: it is shown only once (use it with --token or DDS_API_TOKEN)"));
  },
});
