import { defineCommand } from "../../command.js";
import { withTokenStore } from "./token-store.js";

/** `ddsctl tokens list`. */
export default defineCommand({
  path: ["tokens", "list"],
  description: "list API tokens (never the tokens themselves or their hashes)",
  examples: ["ddsctl tokens list", "ddsctl tokens list --workspace acme --json"],
  configure: (cmd) => cmd.option("--workspace <name>", "only tokens of this workspace"),
  async run(ctx, _args, flags) {
    const { listTokens } = await import("../../../engine/auth/index.js");
    const tokens = await withTokenStore(ctx, (store) => listTokens(store, flags.workspace as string | undefined));
    const { out } = ctx;
    if (out.options.json) return out.json({ data: tokens });
    await out.table(tokens, [
      { header: "TOKEN ID", get: (t) => t.tokenId },
      { header: "NAME", get: (t) => t.name },
      { header: "WORKSPACE", get: (t) => t.workspace },
      { header: "SCOPES", get: (t) => t.scopes.join(",") },
      { header: "CREATED", get: (t) => t.createdAt },
      { header: "LAST USED", get: (t) => t.lastUsedAt },
      { header: "REVOKED", get: (t) => t.revokedAt, style: (s) => (s ? out.c.red(s) : s) },
    ]);
  },
});
