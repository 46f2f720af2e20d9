import { ExitCode } from "../../../contract/errors.js";
import type { PipelineRunOptions } from "../../../contract/service.js";
import { defineCommand } from "../../command.js";
import { parseDuration } from "./duration.js";

/** `ddsctl pipeline run [contextId...]`. */
export default defineCommand({
  path: ["pipeline", "run"],
  description: "resolve stale contexts now (all, or the given ones); remote mode waits for the server's worker",
  examples: ["ddsctl pipeline run", "ddsctl pipeline run <contextId> --timeout 30s --json"],
  configure: (cmd) =>
    cmd
      .argument("[contextId...]", "only these contexts (default: every stale, active context)")
      .option("--timeout <duration>", "give up after this long, e.g. 30s, 2m (exit 5 if contexts are still pending)"),
  async run(ctx, args, flags) {
    // cmd.args holds the variadic contextIds as plain strings.
    const contextIds = args;
    const options: PipelineRunOptions = {};
    if (contextIds.length > 0) options.contextIds = contextIds;
    if (flags.timeout !== undefined) options.timeoutMs = parseDuration(flags.timeout as string, "--timeout");
    const result = await (await ctx.service()).runPipeline(options);
    if (result.pending.length > 0 && options.timeoutMs !== undefined) ctx.setExitCode(ExitCode.timeout);
    const { out } = ctx;
    if (out.options.json) return out.json(result);
    out.fields([
      ["passes", result.passes],
      ["resolved", result.resolved.length > 0 ? out.c.green(result.resolved.join(", ")) : "-"],
      ["pending", result.pending.length > 0 ? out.c.yellow(result.pending.join(", ")) : "-"],
    ]);
    if (result.pending.length > 0) out.info(out.c.dim("pending contexts are still computing, timed out, or completed (reopen them to resolve)"));
  },
});
