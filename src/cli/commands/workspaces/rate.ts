import { defineCommand } from "../../core/define-command.js";
import { outputArgs } from "../../core/shared-args.js";
import { withTokenStore } from "../tokens/token-store.js";

/** `ddsctl workspaces rate [limit|default]`. */
export default defineCommand({
  command: "workspaces rate",
  description: "show or set the workspace's own rate limit, in cost units (default: back to serve's --workspace-rate); managed on the database, like tokens",
  examples: ["ddsctl workspaces rate --workspace acme", "ddsctl --database postgres://dds@db/dds workspaces rate 600000/min --workspace acme", "ddsctl workspaces rate default --workspace acme"],
  args: {
    limit: { type: "string", positional: true, placeholder: "limit", description: "50000/s, 6000/10s, 1000/1d (units per window), off for none, or default; none: show it" },
    ...outputArgs,
  },
  help: "The workspace is the one --workspace (a global option) names, else DDS_WORKSPACE's or the profile's, else default. Every token of the workspace shares its budget; each token also has its own (tokens rate). Running servers apply a change from the next request.",
  writes: true,
  readOnlyWhen: (args) => args.limit === undefined,
  async handler(args, ctx) {
    // Lazy: engine code loads only for the command that uses it, never at start-up.
    const { setWorkspaceRate, workspaceRate } = await import("../../../engine/auth/index.js");
    const { limit } = args;
    const text = limit === undefined || limit.trim().toLowerCase() === "default" ? null : limit;
    const rate = await withTokenStore(ctx, limit !== undefined, (store, workspace) => (limit === undefined ? workspaceRate(store, workspace) : setWorkspaceRate(store, workspace, text)));
    if (ctx.out.options.json) return ctx.out.json(rate);
    ctx.out.fields([
      ["workspace", rate.workspace],
      ["rate", rate.rateLimit ?? "default (serve's --workspace-rate)"],
    ]);
  },
});
