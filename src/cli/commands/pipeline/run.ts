import { ExitCode } from "../../../contract/errors.js";
import type { PipelineRunOptions } from "../../../contract/service.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs } from "../../core/shared-args.js";
import { resolveRefs } from "../../../portable/names/resolve-ref.js";
import { durationFlag } from "../../common/duration-flag.js";
import { contextList } from "../../common/context-labels.js";

/** `ddsctl pipeline run [context...]`. */
export default defineCommand({
  command: "pipeline run",
  description: "resolve stale contexts now (all, or the given ones); remote mode waits for the server's worker",
  examples: ["ddsctl pipeline run", "ddsctl pipeline run case-42 --timeout 30s --json"],
  args: {
    contexts: { type: "strings", positional: true, placeholder: "context", complete: "context", description: "only these contexts, by name or id (default: every stale, active context)" },
    timeout: { type: "string", placeholder: "duration", description: "give up after this long, e.g. 30s, 2m (exit 5 if contexts are still pending)" },
    ...reportArgs,
  },
  async handler(args, ctx) {
    const options: PipelineRunOptions = {};
    if (args.timeout !== undefined) options.timeoutMs = durationFlag(args.timeout, "--timeout");
    const service = await ctx.service();
    const { ids, typed } = await resolveRefs(service, "context", args.contexts);
    if (args.contexts.length > 0) options.contextIds = ids;
    const result = await service.runPipeline(options);
    if (result.pending.length > 0 && options.timeoutMs !== undefined) ctx.setExitCode(ExitCode.timeout);
    const { out } = ctx;
    if (out.options.json) return out.json(result);
    // Contexts by the names the user gave them, else by their own names (ids stay in --json).
    const list = async (ids: string[]) => (ids.length === 0 ? "-" : await contextList(service, ids, typed));
    const count = (ids: string[]) => (args.contexts.length > 0 ? "" : `${ids.length} context(s): `);
    out.fields([
      ["passes", result.passes],
      ["resolved", result.resolved.length > 0 ? out.c.green(`${count(result.resolved)}${await list(result.resolved)}`) : "-"],
      ["pending", result.pending.length > 0 ? out.c.yellow(`${count(result.pending)}${await list(result.pending)}`) : "-"],
    ]);
    if (result.pending.length > 0) out.info(out.c.dim("pending contexts are still computing, timed out, or not active (completed ones resolve once reopened; archived ones never)"));
  },
});
