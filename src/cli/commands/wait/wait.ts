import { ExitCode } from "../../../contract/errors.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs } from "../../core/shared-args.js";
import { resolveRefs } from "../../../portable/names/resolve-ref.js";
import { durationFlag } from "../../common/duration-flag.js";
import { unresolvableText, waitForContexts } from "./wait-contexts.js";

/** `ddsctl wait <contextId...>`. */
export default defineCommand({
  command: "wait",
  description: "wait until contexts are resolved (exit 5 on timeout, 1 when a completed or archived context is stale)",
  examples: ["ddsctl wait case-42", "ddsctl wait <contextId> <contextId> --timeout 2m --json"],
  args: {
    contexts: { type: "strings", positional: true, required: true, placeholder: "context", complete: "context", description: "the contexts to wait for (names or ids)" },
    timeout: { type: "string", placeholder: "duration", default: "30s", description: "give up after this long, e.g. 500ms, 30s, 2m" },
    ...reportArgs,
  },
  async handler(args, ctx) {
    const flags = args;
    const timeoutMs = durationFlag(args.timeout, "--timeout");
    const service = await ctx.service();
    const { ids, typed } = await resolveRefs(service, "context", args.contexts);
    const outcome = await waitForContexts(service, ids, timeoutMs);
    // Reported in the user's words: "okafor-purchase resolved", not its id.
    const label = (id: string) => typed.get(id) ?? id;
    const { out } = ctx;
    if (outcome.unresolvable.length > 0) ctx.setExitCode(ExitCode.failure);
    else if (outcome.pending.length > 0) ctx.setExitCode(ExitCode.timeout);
    if (out.options.json) out.json(outcome);
    else {
      for (const id of outcome.resolved) out.line(`${label(id)} ${out.c.green("resolved")}`);
      for (const id of outcome.pending) out.line(`${label(id)} ${out.c.yellow("pending")}`);
      for (const u of outcome.unresolvable) out.line(`${label(u.contextId)} ${out.c.red(`${u.status}, ${u.freshness}`)}`);
    }
    // Why the exit code is not 0, on stderr, also under --json.
    for (const u of outcome.unresolvable) out.warn(unresolvableText(u, label(u.contextId)));
    if (outcome.pending.length > 0) out.warn(`timed out after ${flags.timeout} with ${outcome.pending.length} context(s) still pending`);
  },
});
