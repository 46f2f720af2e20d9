import { ExitCode } from "../../contract/errors.js";
import type { BulkResponse } from "../../contract/schemas/index.js";
import type { Output } from "../output/output.js";

type Problem = NonNullable<BulkResponse["items"][number]["error"]>;

/** One line for a problem: its detail, then each per-path message. */
export function problemText(p: Problem): string {
  const paths = (p.errors ?? []).map((e) => `${e.path || "(body)"}: ${e.message}`);
  return paths.length > 0 && !paths.every((s) => p.detail.includes(s)) ? `${p.detail} (${paths.join("; ")})` : p.detail;
}

/**
 * Renders a bulk response: one row per item (index, status, what it produced or why it
 * failed), then the summary on stderr. `--json` prints the `{items, summary}` body.
 */
export async function renderBulk(out: Output, res: BulkResponse, describe: (data: unknown) => string): Promise<void> {
  if (out.options.json) return out.json(res);
  await out.table(res.items, [
    { header: "INDEX", get: (i) => i.index },
    { header: "STATUS", get: (i) => i.status, style: (t, i) => (i.status < 300 ? out.c.green(t) : out.c.red(t)) },
    { header: "RESULT", get: (i) => (i.error ? problemText(i.error) : describe(i.data)) },
  ]);
  const { total, succeeded, failed } = res.summary;
  if (failed > 0) out.warn(`${failed} of ${total} items failed, ${succeeded} succeeded`);
  else out.info(`${succeeded} of ${total} items succeeded`);
}

/** Exit code of a bulk call: 0 all succeeded, 3 some failed, 1 every item failed. */
export function bulkExitCode(summary: BulkResponse["summary"]): number {
  if (summary.failed === 0) return ExitCode.ok;
  return summary.succeeded > 0 ? ExitCode.partial : ExitCode.failure;
}

/** The `data` of the items that succeeded (e.g. to learn which contexts they touched). */
export function succeededData(res: BulkResponse): unknown[] {
  return res.items.filter((i) => i.status < 300 && i.data !== undefined).map((i) => i.data);
}
