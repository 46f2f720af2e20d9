import { defineCommand } from "../../command.js";
import { withTokenStore } from "./token-store.js";

/** `ddsctl tokens revoke <tokenId>`. */
export default defineCommand({
  path: ["tokens", "revoke"],
  description: "revoke an API token; a running server refuses it from the next request on",
  examples: ["ddsctl tokens revoke 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10"],
  configure: (cmd) => cmd.argument("<tokenId>", "the tokenId shown by tokens create or tokens list"),
  async run(ctx, [tokenId]) {
    const { revokeToken } = await import("../../../engine/auth/index.js");
    const token = await withTokenStore(ctx, (store) => revokeToken(store, tokenId));
    if (ctx.out.options.json) return ctx.out.json(token);
    ctx.out.info(`revoked token ${token.tokenId}${token.name ? ` (${token.name})` : ""}`);
  },
});
