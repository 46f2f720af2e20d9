import { existsSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { isPostgresUrl } from "../../../engine/store/location.js";
import { errors, ExitCode } from "../../../contract/errors.js";
import { isInteractive } from "../../core/context.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs, yesArgs } from "../../core/shared-args.js";
import type { Output } from "../../output/output.js";
import { packageRoot } from "../../package-root.js";
import { renderEvaluationTrace } from "../../workbench/trace/render-trace.js";
import { waitForContexts } from "../wait/wait-contexts.js";
import { buildDemoReport, type DemoReport } from "./demo-report.js";
import { ddsctlCommand, shellWord } from "../../common/shell-quote.js";
import { maxOf } from "../../../portable/arrays.js";


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

/**
 * What to try next, in words a user types: the cases by name (the one whose failure was
 * shown), and the fixtures by a path relative to here, so each line can be pasted.
 */
function nextSteps(report: DemoReport, fixtures: string): [string, string][] {
  const name = report.traceContext ?? "<context>";
  const rule = report.trace?.rule.name ?? "<rule>";
  return [
    ["ddsctl contexts list --filter type=mortgage", "every case"],
    [ddsctlCommand(["trace", name]), "every rule of that case"],
    [ddsctlCommand(["trace", name, rule]), "why it fails, each input traced to its source"],
    [ddsctlCommand(["records", "list", "--context", name, "-o", "name"]), "its resolved records, as record/<id>"],
    ["ddsctl records explain record/<id> <field>", "which source won a field, and why"],
    [`cp -r ${shellWord(fixtures)} my-cases && ddsctl apply -f my-cases --diff`, "the documents behind this demo: edit a copy, see what it would change"],
  ];
}

/** `ddsctl demo`: the first command a new user runs. */
export default defineCommand({
  command: "demo",
  description: "seed the bundled mortgage fixtures (30 cases, 10 rules), wait for the pipeline, and show contexts, rule outcomes and one failing trace",
  examples: ["ddsctl demo", "ddsctl demo --fresh --yes", "ddsctl --local /tmp/demo.db demo --json"],
  args: {
    fresh: { type: "boolean", description: "delete the local database file first (all its data) and start from an empty one (asks first; --yes without a terminal)" },
    ...yesArgs,
    ...reportArgs,
  },
  writes: true,
  // The README's first command: it seeds the local database even after `ddsctl login`.
  localByDefault: true,
  async handler(args, ctx) {
    const target = ctx.target();
    const { out } = ctx;
    const PACKAGE_ROOT = packageRoot();
    const FIXTURES = join(PACKAGE_ROOT, "fixtures", "mortgage");
    if (args.fresh) {
      if (target.mode !== "local") throw errors.usage(`--fresh deletes a local database file; the target is remote (${target.baseUrl})`);
      if (isPostgresUrl(target.db)) throw errors.usage("--fresh deletes a local SQLite file; drop the PostgreSQL database yourself to start over");
      // A script cannot be asked: deleting a database takes an explicit --yes there.
      if (!args.yes && !isInteractive(ctx.io)) throw errors.usage(`--fresh deletes ${target.db} and all its data: add --yes to confirm (there is no terminal to ask on)`);
      if (existsSync(target.db)) await ctx.confirm(`Delete ${target.db} and all its data?`, args.yes);
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${target.db}${suffix}`, { force: true });
      out.info(out.c.dim(`removed ${target.db}`));
    }
    // Lazy: the declarative documents build zod schemas and load yaml; every command module loads at start-up (registry.ts).
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
    const hints = nextSteps(report, relative(process.cwd(), FIXTURES) || ".");
    const width = maxOf(hints.map(([c]) => c.length));
    out.info(`\n${out.c.bold("next steps")}`);
    for (const [command, why] of hints) out.info(`  ${command.padEnd(width)}  ${out.c.dim(why)}`);
  },
});
