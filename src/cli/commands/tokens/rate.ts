import { defineCommand } from "../../core/define-command.js";
import { outputArgs } from "../../core/shared-args.js";
import { withTokenStore } from "./token-store.js";
import { idRef } from "../../../portable/names/resolve-ref.js";

/** `ddsctl tokens rate <tokenId> <limit|default>`. */
export default defineCommand({
  command: "tokens rate",
  description: "set a token's own rate limit, in cost units (default: back to serve's --token-rate); running servers apply it from the next request",
  examples: ["ddsctl tokens rate 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 20000/min", "ddsctl tokens rate 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 off", "ddsctl tokens rate 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 default"],
  args: {
    tokenId: { type: "string", positional: true, required: true, description: "the tokenId shown by tokens create or tokens list" },
    limit: { type: "string", positional: true, required: true, placeholder: "limit", description: "50000/s, 6000/10s, 1000/1d (units per window), off for none, or default" },
    ...outputArgs,
  },
  help: "A request costs 1 for a read, 10 for a write and 10 plus a quarter per item for a bulk (docs/rest-api.md, \"Rate limits\"). The token is also held to its workspace's limit.",
  writes: true,
  async handler(args, ctx) {
    // Lazy: engine code (node:crypto, the token cache) loads only for the token commands, never at start-up.
    const { setTokenRate } = await import("../../../engine/auth/index.js");
    const text = args.limit.trim().toLowerCase() === "default" ? null : args.limit;
    const token = await withTokenStore(ctx, false, (store) => setTokenRate(store, idRef("token", args.tokenId), text));
    if (ctx.out.options.json) return ctx.out.json(token);
    ctx.out.fields([
      ["tokenId", token.tokenId],
      ["workspace", token.workspace],
      ["rate", token.rateLimit ?? "default (serve's --token-rate)"],
    ]);
  },
});
