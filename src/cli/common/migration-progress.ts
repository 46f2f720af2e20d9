import type { MigrationProgress, OnMigrationProgress } from "../../engine/store/migration-progress.js";
import type { Output } from "../output/output.js";

const label = (p: MigrationProgress) => `upgrading the database to this ddsctl's schema (${p.migration}): ${p.step}`;

/**
 * Shows a schema upgrade of an earlier release's database as it runs, on stderr: on a
 * terminal one line redrawn with the share of rows copied; elsewhere one line per table
 * (a log shows where a long upgrade is, and nothing redrawn).
 */
export function migrationProgress(out: Output): OnMigrationProgress {
  let step = "";
  let drawn = 0;
  return (p) => {
    if (out.stderrTTY) {
      const now = Date.now();
      const last = p.done >= p.total;
      if (!last && now - drawn < 100) return;
      drawn = now;
      const share = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100;
      out.progress(`\r${label(p)} ${share} % (${p.done.toLocaleString("en-US")} of ${p.total.toLocaleString("en-US")} rows)\x1b[K${last ? "\n" : ""}`);
    } else if (p.step !== step) {
      step = p.step;
      out.info(label(p));
    }
  };
}
