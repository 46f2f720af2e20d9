import { existsSync } from "node:fs";
import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs, refFlags, refs } from "../../core/shared-args.js";
import { refLabel, resolveRef } from "../../../portable/names/resolve-ref.js";
import { renderTraceDiff } from "../../workbench/trace/render-trace-diff.js";
import { durationFlag } from "../../common/duration-flag.js";
import { readDocument } from "../../workbench/rule-source.js";
import { runTraceDiff } from "../../../portable/workbench/trace/trace-diff-run.js";

/** `--since`: a file is a snapshot; else an ISO time, or a duration back from now (`2h`). */
function sinceTime(text: string): string {
  const at = Date.parse(text);
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && Number.isFinite(at)) return new Date(at).toISOString();
  if (/^\d+(\.\d+)?\s*[a-z]+$/i.test(text)) return new Date(Date.now() - durationFlag(text, "--since")).toISOString();
  throw errors.usage(`--since ${text}: give a snapshot file (from trace --json), an ISO time such as 2026-11-22T10:00:00Z, or a duration such as 2h`);
}

/** `ddsctl trace diff <contextId> <rule> (--since <snapshot|time> | --against-context <id>)`. */
export default defineCommand({
  command: "trace diff",
  description:
    "compare a rule's evaluation now with a saved snapshot, with the context as it was at a time, or with another context: the first changed node, the changed inputs and the contributions behind them",
  examples: [
    "ddsctl trace diff <contextId> dti-limit --since before.json",
    "ddsctl trace diff <contextId> dti-limit --since 2026-11-22T10:00:00Z",
    "ddsctl trace diff <contextId> dti-limit --since 2h --json",
    "ddsctl trace diff <contextId> dti-limit --against-context <otherContextId>",
  ],
  args: {
    context: refs.context,
    rule: refs.rule,
    since: { type: "string", placeholder: "snapshot|time", complete: "file", description: "a trace --json snapshot file, an ISO time, or a duration back from now (30m, 2h)" },
    againstContext: { ...refFlags.context, description: "compare with the rule's evaluation in another context (name or contextId)" },
    ...reportArgs,
  },
  async handler(args, ctx) {
    const { since, againstContext: other } = args;
    if ((since === undefined) === (other === undefined)) throw errors.usage("give exactly one of --since <snapshot|time> and --against-context <contextId>");
    let document: unknown;
    if (since !== undefined && existsSync(since)) {
      document = await readDocument(ctx.io, since);
    }
    const asOf = since !== undefined && document === undefined ? sinceTime(since) : undefined;
    const service = await ctx.service();
    const contextId = await resolveRef(service, "context", args.context);
    const ruleId = await resolveRef(service, "rule", args.rule);
    const baseline =
      document !== undefined
        ? { kind: "snapshot" as const, file: since!, document }
        : asOf !== undefined
          ? { kind: "time" as const, asOf }
          : { kind: "context" as const, contextId: await resolveRef(service, "context", other!) };
    const report = await runTraceDiff(service, contextId, ruleId, baseline);
    if (ctx.out.options.json) return ctx.out.json(report);
    const rule = await service.getRule(ruleId);
    renderTraceDiff(ctx.out, report, {
      context: refLabel("context", args.context, contextId),
      rule: `${rule.name} (${ruleId})`,
      against: baseline.kind === "context" ? refLabel("context", other!, baseline.contextId) : undefined,
    });
  },
});
