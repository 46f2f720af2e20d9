import { existsSync } from "node:fs";
import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../command.js";
import { renderTraceDiff } from "../../render/trace-diff.js";
import { resolveContextId } from "../../workbench/refs.js";
import { parseDuration } from "../pipeline/duration.js";
import { resolveRuleId } from "../rules/rule-ref.js";

/** `--since`: a file is a snapshot; else an ISO time, or a duration back from now (`2h`). */
function sinceTime(text: string): string {
  const at = Date.parse(text);
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && Number.isFinite(at)) return new Date(at).toISOString();
  if (/^\d+(\.\d+)?(ms|s|m|h)$/.test(text)) return new Date(Date.now() - parseDuration(text, "--since")).toISOString();
  throw errors.usage(`--since ${text}: give a snapshot file (from trace --json), an ISO time such as 2026-11-22T10:00:00Z, or a duration such as 2h`);
}

/** `ddsctl trace diff <contextId> <rule> (--since <snapshot|time> | --against-context <id>)`. */
export default defineCommand({
  path: ["trace", "diff"],
  description:
    "compare a rule's evaluation now with a saved snapshot, with the context as it was at a time, or with another context: the first changed node, the changed inputs and the contributions behind them",
  examples: [
    "ddsctl trace diff <contextId> dti-limit --since before.json",
    "ddsctl trace diff <contextId> dti-limit --since 2026-11-22T10:00:00Z",
    "ddsctl trace diff <contextId> dti-limit --since 2h --json",
    "ddsctl trace diff <contextId> dti-limit --against-context <otherContextId>",
  ],
  configure: (cmd) =>
    cmd
      .argument("<contextId>", "context id or name")
      .argument("<rule>", "rule name or ruleId")
      .option("--since <snapshot|time>", "a trace --json snapshot file, an ISO time, or a duration back from now (30m, 2h)")
      .option("--against-context <contextId>", "compare with the rule's evaluation in another context"),
  async run(ctx, [contextRef, ruleRef], flags) {
    const since = flags.since as string | undefined;
    const other = flags.againstContext as string | undefined;
    if ((since === undefined) === (other === undefined)) throw errors.usage("give exactly one of --since <snapshot|time> and --against-context <contextId>");
    let document: unknown;
    if (since !== undefined && existsSync(since)) {
      const { readDocument } = await import("../../workbench/rule-source.js");
      document = await readDocument(since);
    }
    const asOf = since !== undefined && document === undefined ? sinceTime(since) : undefined;
    const service = await ctx.service();
    const contextId = await resolveContextId(service, contextRef);
    const ruleId = await resolveRuleId(service, ruleRef);
    const baseline =
      document !== undefined
        ? { kind: "snapshot" as const, file: since!, document }
        : asOf !== undefined
          ? { kind: "time" as const, asOf }
          : { kind: "context" as const, contextId: await resolveContextId(service, other!) };
    const { runTraceDiff } = await import("../../workbench/trace-diff-run.js");
    const report = await runTraceDiff(service, contextId, ruleId, baseline);
    if (ctx.out.options.json) return ctx.out.json(report);
    renderTraceDiff(ctx.out, report);
  },
});
