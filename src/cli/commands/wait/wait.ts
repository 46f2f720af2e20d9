import { ExitCode } from "../../../contract/errors.js";
import { defineCommand } from "../../command.js";
import { parseDuration } from "../pipeline/duration.js";
import { unresolvableText, waitForContexts } from "./wait-contexts.js";

/** `ddsctl wait <contextId...>`. */
export default defineCommand({
  path: ["wait"],
  description: "wait until contexts are resolved (exit 5 on timeout, 1 when a completed or archived context is stale)",
  examples: ["ddsctl wait <contextId>", "ddsctl wait <contextId> <contextId> --timeout 2m --json"],
  configure: (cmd) =>
    cmd
      .argument("<contextId...>", "the contexts to wait for")
      .option("--timeout <duration>", "give up after this long, e.g. 500ms, 30s, 2m", "30s"),
  async run(ctx, args, flags) {
    const timeoutMs = parseDuration(flags.timeout as string, "--timeout");
    const outcome = await waitForContexts(await ctx.service(), args, timeoutMs);
    const { out } = ctx;
    if (outcome.unresolvable.length > 0) ctx.setExitCode(ExitCode.failure);
    else if (outcome.pending.length > 0) ctx.setExitCode(ExitCode.timeout);
    if (out.options.json) out.json(outcome);
    else {
      for (const id of outcome.resolved) out.line(`${id} ${out.c.green("resolved")}`);
      for (const id of outcome.pending) out.line(`${id} ${out.c.yellow("pending")}`);
      for (const u of outcome.unresolvable) out.line(`${u.contextId} ${out.c.red(`${u.status}, ${u.freshness}`)}`);
    }
    // Why the exit code is not 0, on stderr, also under --json.
    for (const u of outcome.unresolvable) out.warn(unresolvableText(u));
    if (outcome.pending.length > 0) out.warn(`timed out after ${flags.timeout as string} with ${outcome.pending.length} context(s) still pending`);
  },
});
