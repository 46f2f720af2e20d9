import { errors, ExitCode } from "../../../contract/errors.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs } from "../../core/shared-args.js";
import { durationFlag } from "../../common/duration-flag.js";
import { unresolvableText, waitForContexts } from "../wait/wait-contexts.js";
import { contextList } from "../../common/context-labels.js";

/** `ddsctl seed <dir>`: apply, then wait until every declared context is resolved. */
export default defineCommand({
  command: "seed",
  description: "apply a directory of documents (models, rules, contexts with evidence) and wait until every context is resolved: one command for CI",
  examples: ["ddsctl seed fixtures/mortgage/", "ddsctl seed fixtures/ --timeout 2m --json"],
  args: {
    path: { type: "string", positional: true, required: true, complete: "file", description: "a directory (every *.json, *.yaml, *.yml below it) or one file" },
    timeout: { type: "string", placeholder: "duration", default: "60s", description: "how long to wait for the pipeline, e.g. 30s, 2m (exit 5 when it runs out)" },
    ...reportArgs,
  },
  writes: true,
  async handler(args, ctx) {
    const flags = args;
    const timeoutMs = durationFlag(args.timeout, "--timeout");
    // Lazy: the declarative documents build zod schemas and load yaml; every command module loads at start-up (registry.ts).
    const lib = await import("../../declarative/index.js");
    const docs = lib.loadDocuments(args.path);
    const service = await ctx.service();
    const applied = await lib.applyDocuments(service, docs, { dryRun: false });
    const waited = await waitForContexts(service, applied.contextIds, timeoutMs);
    const { out } = ctx;
    if (out.options.json) out.json({ apply: applied, wait: waited });
    else {
      const count = (kind: string) => {
        const items = applied.items.filter((i) => i.kind === kind);
        const by = (a: string) => items.filter((i) => i.action === a).length;
        return `${items.length} (${by("create")} created, ${by("update")} updated, ${by("unchanged")} unchanged)`;
      };
      const total = applied.contextIds.length;
      out.fields([
        ["models", count("Model")],
        ["rules", count("Rule")],
        ["contexts", count("Context")],
        ["contributions", `${applied.summary.contributionsAdded} added${applied.failures.length > 0 ? `, ${applied.failures.length} refused` : ""}`],
        ["resolved", `${waited.resolved.length}/${total} context(s)`],
      ]);
    }
    // The documents name their contexts: say those names rather than ids.
    const named = new Map(applied.items.filter((i) => i.kind === "Context" && i.id).map((i) => [i.id!, i.name]));
    for (const u of waited.unresolvable) out.warn(unresolvableText(u, named.get(u.contextId) ?? u.contextId));
    if (applied.failures.length > 0) {
      const first = applied.failures[0];
      throw errors.validation(`${applied.failures.length} contribution(s) were refused: ${first.path}: ${first.message}`, applied.failures);
    }
    if (waited.unresolvable.length > 0) ctx.setExitCode(ExitCode.failure);
    else if (waited.pending.length > 0) {
      out.warn(`timed out after ${flags.timeout}: ${waited.pending.length} context(s) still pending (${await contextList(service, waited.pending, named)})`);
      ctx.setExitCode(ExitCode.timeout);
    }
  },
});
