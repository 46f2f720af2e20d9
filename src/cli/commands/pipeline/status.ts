import { defineCommand } from "../../core/define-command.js";
import { reportArgs } from "../../core/shared-args.js";

/** `ddsctl pipeline status`. */
export default defineCommand({
  command: "pipeline status",
  description: "count contexts by freshness: resolved, stale, computing, waiting (completed) and expired claims",
  examples: ["ddsctl pipeline status", "ddsctl pipeline status --json"],
  args: { ...reportArgs },
  async handler(_args, ctx) {
    const status = await (await ctx.service()).pipelineStatus();
    const { out } = ctx;
    if (out.options.json) return out.json(status);
    const rows: [string, number, string][] = [
      ["resolved", status.contexts.resolved, "up to date"],
      ["stale", status.contexts.stale, "evidence or definitions changed; waiting for a pass"],
      ["computing", status.contexts.computing, "a pass is running"],
      ["waiting", status.waiting, "stale but completed: not processed until reopened"],
      ["expired claims", status.expiredClaims, "a worker stopped mid-pass; claimable again"],
    ];
    out.table(rows, [
      { header: "STATE", get: (r) => r[0] },
      { header: "CONTEXTS", get: (r) => r[1], style: (t, r) => (r[1] > 0 && r[0] !== "resolved" ? out.c.yellow(t) : t) },
      { header: "MEANING", get: (r) => r[2], style: (t) => out.c.dim(t) },
    ]);
  },
});
