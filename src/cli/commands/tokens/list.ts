import { defineCommand } from "../../core/define-command.js";
import { outputArgs } from "../../core/shared-args.js";
import { withTokenStore } from "./token-store.js";

/** `ddsctl tokens list`. */
export default defineCommand({
  command: "tokens list",
  description: "list API tokens (never the tokens themselves or their hashes)",
  examples: ["ddsctl tokens list", "ddsctl tokens list --workspace acme --json"],
  args: { ...outputArgs },
  help: "--workspace (a global option) lists only the tokens of that workspace.",
  async handler(args, ctx) {
    // Lazy: engine code (node:crypto, the token cache) loads only for the token commands, never at start-up.
    const { listTokens } = await import("../../../engine/auth/index.js");
    const tokens = await withTokenStore(ctx, false, (store) => listTokens(store, ctx.globals.workspace));
    const { out } = ctx;
    if (out.options.json) return out.json({ data: tokens });
    out.table(
      tokens,
      [
        { header: "TOKEN ID", get: (t) => t.tokenId },
        { header: "NAME", get: (t) => t.name },
        { header: "WORKSPACE", get: (t) => t.workspace },
        { header: "SCOPES", get: (t) => t.scopes.join(",") },
        { header: "RATE", get: (t) => t.rateLimit ?? "default" },
        { header: "CREATED", get: (t) => t.createdAt },
        { header: "LAST USED", get: (t) => t.lastUsedAt },
        {
          header: "EXPIRES",
          get: (t) => (t.expiresAt === null ? "never" : Date.parse(t.expiresAt) <= Date.now() ? `${t.expiresAt} (expired)` : t.expiresAt),
          style: (s) => (s.endsWith("(expired)") ? out.c.red(s) : s),
        },
        { header: "REVOKED", get: (t) => t.revokedAt, style: (s) => (s ? out.c.red(s) : s) },
      ],
      "tokens",
    );
  },
});
