import { DEFAULT_WORKSPACE } from "../../../contract/workspace.js";
import { defineCommand } from "../../core/define-command.js";
import { outputArgs } from "../../core/shared-args.js";
import { positiveDuration } from "../../common/duration-flag.js";
import { withTokenStore } from "./token-store.js";

/** `ddsctl tokens create`. */
export default defineCommand({
  command: "tokens create",
  description: "issue an API token for a workspace (printed once; only its SHA-256 is stored)",
  examples: [
    "ddsctl tokens create --workspace default --scope write --name importer",
    "ddsctl --local /srv/dds.db tokens create --workspace acme --scope admin --json",
    "ddsctl tokens create --workspace acme --scope write --name nightly-load --rate 20000/min",
    "ddsctl tokens create --scope read --name dashboard --expires-in 90d   # 401 once 90 days have passed",
  ],
  args: {
    scope: { type: "strings", required: true, commaSeparated: true, description: "read, write (implies read) or admin (implies write); repeatable" },
    name: { type: "string", description: "a label to recognise the token by in tokens list" },
    rate: { type: "string", placeholder: "limit", description: "the token's own rate limit in cost units (50000/s, 6000/10s, 1000/1d; off for none); default: serve's --token-rate" },
    expiresIn: { type: "string", placeholder: "duration", description: "the token stops working this long from now (90d, 12h, 30m); without it, never" },
    ...outputArgs,
  },
  help: "The token acts in the workspace --workspace (a global option) names, else DDS_WORKSPACE's or the profile's, else default (where the local database keeps its data). A workspace the database does not have yet is created, empty, and stderr says so (ddsctl workspaces list shows those it has).",
  writes: true,
  async handler(args, ctx) {
    const expiresAt = args.expiresIn === undefined ? undefined : new Date(Date.now() + positiveDuration(args.expiresIn, "--expires-in")).toISOString();
    // Lazy: engine code (node:crypto, the token cache) loads only for the token commands, never at start-up.
    const { issueTokenReporting, listWorkspaces } = await import("../../../engine/auth/index.js");
    const { issued, workspaceCreated, others } = await withTokenStore(ctx, true, async (store, workspace) => {
      const outcome = await issueTokenReporting(store, { workspace, scopes: args.scope, name: args.name, rate: args.rate, expiresAt });
      const names = outcome.workspaceCreated ? (await listWorkspaces(store)).map((w) => w.name).filter((n) => n !== workspace) : [];
      return { ...outcome, others: names };
    });
    const { out } = ctx;
    // A typo (--workspace acmee) would otherwise make a new, empty workspace in silence.
    if (workspaceCreated && issued.workspace !== DEFAULT_WORKSPACE) {
      const known = others.length > 0 ? `; the database's other workspaces: ${others.join(", ")}` : "";
      out.warn(`workspace "${issued.workspace}" did not exist: created it, empty${known} (ddsctl workspaces list)`);
    }
    if (out.options.json) return out.json(issued);
    out.fields([
      ["tokenId", issued.tokenId],
      ["workspace", issued.workspace],
      ["scopes", issued.scopes.join(", ")],
      ["rate", issued.rateLimit ?? "default (serve's --token-rate)"],
      ["expires", issued.expiresAt ?? "never"],
      ["token", issued.token],
    ]);
    out.info(out.c.yellow("store the token now: it is shown only once (use it with --token or DDS_API_TOKEN)"));
  },
});
