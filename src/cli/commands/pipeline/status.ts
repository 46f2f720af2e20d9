import { defineCommand } from "../../core/define-command.js";
import { reportArgs } from "../../core/shared-args.js";

/** `ddsctl pipeline status`. */
export default defineCommand({
  command: "pipeline status",
  description: "count contexts, each once: resolved, stale (active), computing, waiting (stale but completed or archived), and expired claims among the computing",
  examples: ["ddsctl pipeline status", "ddsctl pipeline status --json"],
  args: { ...reportArgs },
  async handler(_args, ctx) {
    const status = await (await ctx.service()).pipelineStatus();
    const { out } = ctx;
    if (out.options.json) return out.json(status);
    // Each context is counted once: the four states add up to the total.
    const { resolved, stale, computing } = status.contexts;
    const rows: [string, number, string][] = [
      ["resolved", resolved, "up to date"],
      ["stale", stale, "active; evidence or definitions changed: waiting for a pass"],
      ["computing", computing, "a pass is running"],
      ["waiting", status.waiting, "stale but completed (processed once reopened) or archived (never)"],
      ["total", resolved + stale + computing + status.waiting, "every context"],
      ["expired claims", status.expiredClaims, "of the computing ones: a worker stopped mid-pass; claimable again"],
    ];
    out.table(rows, [
      { header: "STATE", get: (r) => r[0] },
      { header: "CONTEXTS", get: (r) => r[1], style: (t, r) => (r[1] > 0 && r[0] !== "resolved" && r[0] !== "total" ? out.c.yellow(t) : t) },
      { header: "MEANING", get: (r) => r[2], style: (t) => out.c.dim(t) },
    ]);
  },
});
