import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isPostgresUrl } from "../../../engine/store/location.js";
import { errors, ExitCode } from "../../../contract/errors.js";
import { defineCommand } from "../../command.js";
import type { Output } from "../../output.js";
import { renderEvaluationTrace } from "../../render/trace.js";
import { waitForContexts } from "../wait/wait-contexts.js";
import { buildDemoReport, type DemoReport } from "./demo-report.js";

// dist/cli/commands/demo/demo.js (and src/… under tests) sit four levels below the package
// root, which ships fixtures/: `npx ddsctl demo` finds them from any working directory.
const PACKAGE_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../../../../fixtures/mortgage/", import.meta.url));

async function renderReport(out: Output, report: DemoReport): Promise<void> {
  out.line(out.c.bold("Contexts"));
  await out.table(report.contexts, [
    { header: "NAME", get: (c) => c.name },
    { header: "STATUS", get: (c) => c.status },
    { header: "FRESHNESS", get: (c) => c.freshness },
    { header: "PASSED", get: (c) => c.passed, style: (t) => out.c.green(t) },
    { header: "FAILED", get: (c) => c.failed, style: (t, c) => (c.failed > 0 ? out.c.red(t) : t) },
  ]);
  out.line();
  out.line(out.c.bold("Rules across these contexts"));
  await out.table(report.rules, [
    { header: "RULE", get: (r) => r.name },
    { header: "CATEGORY", get: (r) => r.category },
    { header: "SEVERITY", get: (r) => r.severity },
    { header: "PASSED", get: (r) => r.passed, style: (t) => out.c.green(t) },
    { header: "FAILED", get: (r) => r.failed, style: (t, r) => (r.failed > 0 ? out.c.red(t) : t) },
  ]);
  if (!report.trace) return;
  out.line();
  out.line(out.c.bold(`Why ${report.traceContext} fails ${report.trace.rule.name}`));
  await renderEvaluationTrace(out, report.trace);
}

/** `ddsctl demo`: the first command a new user runs. */
export default defineCommand({
  path: ["demo"],
  description: "seed the bundled mortgage fixtures (30 cases, 10 rules), wait for the pipeline, and show contexts, rule outcomes and one failing trace",
  examples: ["ddsctl demo", "ddsctl demo --fresh", "ddsctl --local /tmp/demo.db demo --json"],
  configure: (cmd) => cmd.option("--fresh", "delete the local database file first (all its data) and start from an empty one"),
  async run(ctx, _args, flags) {
    const target = ctx.target();
    const { out } = ctx;
    if (flags.fresh) {
      if (target.mode !== "local") throw errors.usage(`--fresh deletes a local database file; the target is remote (${target.baseUrl})`);
      if (isPostgresUrl(target.db)) throw errors.usage("--fresh deletes a local SQLite file; drop the PostgreSQL database yourself to start over");
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${target.db}${suffix}`, { force: true });
      out.info(out.c.dim(`removed ${target.db}`));
    }
    const lib = await import("../../declarative/index.js");
    const docs = lib.loadDocuments(FIXTURES, PACKAGE_ROOT);
    const service = await ctx.service();
    const applied = await lib.applyDocuments(service, docs, { dryRun: false });
    out.info(out.c.dim(`fixtures/mortgage: ${lib.summaryLine(applied)}`));
    const waited = await waitForContexts(service, applied.contextIds, 60_000);
    if (waited.pending.length > 0 || waited.unresolvable.length > 0) {
      out.warn(`${waited.pending.length + waited.unresolvable.length} context(s) are not resolved; the numbers below may be stale`);
      ctx.setExitCode(waited.pending.length > 0 ? ExitCode.timeout : ExitCode.failure);
    }
    const report = await buildDemoReport(service, applied.contextIds);
    if (out.options.json) return out.json(report);
    await renderReport(out, report);
    const id = report.contexts.find((c) => c.name === report.traceContext)?.contextId ?? "<contextId>";
    const hints: [string, string][] = [
      ["ddsctl contexts list --filter type=mortgage", "every case"],
      [`ddsctl trace ${id}`, "every rule of that case"],
      [`ddsctl records list --context ${id}`, "its resolved records"],
      ["ddsctl records explain <recordId> <field>", "which source won a field, and why"],
      [`ddsctl apply -f <a copy of ${FIXTURES}> --diff`, "the documents behind this demo: edit a copy, see what it would change"],
    ];
    const width = Math.max(...hints.map(([c]) => c.length));
    out.info(`\n${out.c.bold("next steps")}`);
    for (const [command, why] of hints) out.info(`  ${command.padEnd(width)}  ${out.c.dim(why)}`);
  },
});
