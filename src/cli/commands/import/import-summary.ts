import type { ImportCounts } from "./import-ledger.js";
import { problemText } from "../../render/bulk.js";
import type { Output } from "../../output/output.js";
import type { KindSpec } from "./import-kinds.js";
import type { ImportResult } from "./import-run.js";

/**
 * The `--json` summary of an import. `created` counts items this run applied (contributions
 * created, records updated or deleted); `replayed` those an earlier run of the same lines
 * had applied, answered from the service's idempotency store and applied nothing;
 * `unchanged` the contributions the service answered with the one of their source they
 * equal (200: it stored nothing, marked nothing stale); `superseded` the created
 * contributions that superseded an earlier one from the same source; `changed` the lines a
 * resume found stored before and edited since, which it reports and does not send again.
 * lines = created + replayed + unchanged + failed + skipped + changed.
 * `rate` counts the lines read past
 * the checkpoint (a resume's skipped lines are no work), per second since the first of
 * them; null when there were none.
 */
export interface ImportSummary extends Omit<ImportCounts, "valid"> {
  seconds: number;
  /** Lines per second past the checkpoint; null when none were read (a finished file resumed). */
  rate: number | null;
  complete: boolean;
  rejects: string | null;
  /** Only on a dry run: lines that passed every local check. */
  dryRun?: true;
  valid?: number;
}

/** Builds the summary object of a result. */
export function summaryOf(result: ImportResult, dryRun: boolean): ImportSummary {
  const c = result.counts;
  const seconds = Math.round(result.seconds * 1000) / 1000;
  const summary: ImportSummary = {
    lines: c.lines,
    created: c.created,
    replayed: c.replayed,
    unchanged: c.unchanged,
    superseded: c.superseded,
    failed: c.failed,
    skipped: c.skipped,
    changed: c.changed,
    batches: c.batches,
    seconds,
    rate: result.sent.lines > 0 ? Math.round(result.sent.lines / Math.max(result.sent.seconds, 0.001)) : null,
    complete: result.complete,
    rejects: c.failed > 0 && result.rejectsPath ? result.rejectsPath : null,
  };
  if (dryRun) Object.assign(summary, { dryRun: true, valid: c.valid });
  return summary;
}

/** Prints the summary (table or --json) on stdout and the first failures on stderr. */
export function renderSummary(out: Output, result: ImportResult, spec: KindSpec, dryRun: boolean): void {
  const s = summaryOf(result, dryRun);
  if (out.options.json) out.json(s);
  else {
    const rows: [string, unknown][] = [["lines", s.lines]];
    if (dryRun) rows.push(["valid", s.valid]);
    else {
      rows.push([spec.verb, s.created], ["replayed", s.replayed]);
      if (s.unchanged > 0) rows.push(["unchanged", s.unchanged]);
      if (spec.verb === "created") rows.push(["superseded", s.superseded]);
    }
    rows.push(["failed", s.failed > 0 ? out.c.red(String(s.failed)) : 0], ["skipped", s.skipped]);
    if (s.changed > 0) rows.push(["changed", out.c.yellow(String(s.changed))]);
    if (!dryRun) rows.push(["batches", s.batches]);
    rows.push(["elapsed", `${s.seconds.toFixed(2)} s`]);
    if (s.rate !== null) rows.push(["rate", `${s.rate.toLocaleString("en-US")} lines/s`]);
    if (s.rejects) rows.push(["rejects", s.rejects]);
    out.fields(rows);
  }
  for (const r of result.firstRejects) out.info(out.c.dim(`  line ${r.line}: ${problemText(r.error)}`));
  if (s.failed > result.firstRejects.length) out.info(out.c.dim(`  … ${s.failed - result.firstRejects.length} more${s.rejects ? ` in ${s.rejects}` : ""}`));
  if (s.failed > 0) out.warn(`${s.failed} line(s) ${dryRun ? "would fail" : "failed"}${s.rejects ? `; see ${s.rejects} (one {line, error, input} per line)` : ""}`);
  if (s.changed > 0) {
    const which = result.firstChanged.join(", ") + (s.changed > result.firstChanged.length ? ", …" : "");
    out.warn(
      `${s.changed} line(s) imported before have been edited since (line ${which}): not sent again, their earlier version stays stored; ` +
        "import an edited line on its own to add it as it reads now",
    );
  }
  if (result.stoppedAt !== undefined) {
    out.warn(
      `stopped after line ${result.stoppedAt}: more lines failed than --max-errors allows; ` +
        (dryRun ? "fix them and rerun" : "fix them in place and rerun with --resume: the fixed lines are sent again, and the import continues after that line"),
    );
  }
}
