import { defineCommand } from "../../core/define-command.js";
import { outputArgs, yesArgs } from "../../core/shared-args.js";
import { withTokenStore } from "./token-store.js";
import { idRef } from "../../../portable/names/resolve-ref.js";

/** `ddsctl tokens revoke <tokenId>`. */
export default defineCommand({
  command: "tokens revoke",
  description: "revoke an API token; a running server refuses it from the next request on",
  examples: ["ddsctl tokens revoke 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --yes"],
  args: { tokenId: { type: "string", positional: true, required: true, description: "the tokenId shown by tokens create or tokens list" }, ...yesArgs, ...outputArgs },
  writes: true,
  async handler(args, ctx) {
    // Lazy: engine code (node:crypto, the token cache) loads only for the token commands, never at start-up.
    const { revokeToken } = await import("../../../engine/auth/index.js");
    await ctx.confirm(`Revoke token ${args.tokenId}?`, args.yes);
    const token = await withTokenStore(ctx, false, (store) => revokeToken(store, idRef("token", args.tokenId)));
    if (ctx.out.options.json) return ctx.out.json(token);
    ctx.out.info(`revoked token ${token.tokenId}${token.name ? ` (${token.name})` : ""}`);
  },
});
