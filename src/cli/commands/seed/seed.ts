import { errors, ExitCode } from "../../../contract/errors.js";
import { defineCommand } from "../../command.js";
import { parseDuration } from "../pipeline/duration.js";
import { unresolvableText, waitForContexts } from "../wait/wait-contexts.js";

/** `ddsctl seed <dir>`: apply, then wait until every declared context is resolved. */
export default defineCommand({
  path: ["seed"],
  description: "apply a directory of documents (models, rules, contexts with evidence) and wait until every context is resolved: one command for CI",
  examples: ["ddsctl seed fixtures/mortgage/", "ddsctl seed fixtures/ --timeout 2m --json"],
  configure: (cmd) =>
    cmd
      .argument("<path>", "a directory (every *.json, *.yaml, *.yml below it) or one file")
      .option("--timeout <duration>", "how long to wait for the pipeline, e.g. 30s, 2m (exit 5 when it runs out)", "60s"),
  async run(ctx, [path], flags) {
    const timeoutMs = parseDuration(flags.timeout as string, "--timeout");
    const lib = await import("../../declarative/index.js");
    const docs = lib.loadDocuments(path);
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
    for (const u of waited.unresolvable) out.warn(unresolvableText(u));
    if (applied.failures.length > 0) {
      const first = applied.failures[0];
      throw errors.validation(`${applied.failures.length} contribution(s) were refused: ${first.path}: ${first.message}`, applied.failures);
    }
    if (waited.unresolvable.length > 0) ctx.setExitCode(ExitCode.failure);
    else if (waited.pending.length > 0) {
      out.warn(`timed out after ${flags.timeout as string}: ${waited.pending.length} context(s) still pending (${waited.pending.join(", ")})`);
      ctx.setExitCode(ExitCode.timeout);
    }
  },
});
