import type { Output } from "../../output/output.js";
import type { ReceivedSince, TraceDiffReport } from "../../../portable/workbench/trace/trace-diff-run.js";
import type { NodeChange } from "../../../portable/workbench/trace/trace-diff.js";
import { outcomeText } from "../../render/rules.js";
import { renderSourceLines } from "./render-trace-inputs.js";
import { formatTraceValue } from "../../../portable/workbench/trace/trace-value.js";

const side = (evaluated: boolean, value: unknown) => (evaluated ? formatTraceValue(value) : "(not evaluated)");

function changeLine(ch: NodeChange): string {
  return `${ch.path} ${ch.op}: ${side(ch.oldEvaluated, ch.old)} → ${side(ch.newEvaluated, ch.new)}`;
}

function receivedLine(r: ReceivedSince): string {
  const mark = r.winning ? " (winning now)" : r.status === "superseded" ? " (superseded)" : "";
  return `${r.contributionId} ${r.sourceType}:${r.sourceId} record ${r.recordId} ${r.field}=${formatTraceValue(r.value)} confidence ${r.confidence} received ${r.receivedAt}${mark}`;
}

/** How the user named what is compared: `okafor-purchase (<id>)`, or ids when they gave ids. */
export interface TraceDiffLabels {
  context: string;
  rule: string;
  against?: string;
}

const baselineText = (r: TraceDiffReport, labels: TraceDiffLabels | undefined) =>
  r.against.kind === "snapshot"
    ? `snapshot ${r.against.file}`
    : r.against.kind === "time"
      ? `as of ${r.against.asOf}`
      : `context ${labels?.against ?? r.against.contextId}`;

/**
 * `trace diff`: the outcomes, the first changed node and the chain of changes below it
 * down to where the change originates, then each changed input (old → new) with the
 * contribution supplying it now (and before, and received since, when known).
 */
export function renderTraceDiff(out: Output, r: TraceDiffReport, labels?: TraceDiffLabels): void {
  const { c } = out;
  out.fields([
    ["context", labels?.context ?? r.contextId],
    ["rule", labels?.rule ?? r.ruleId],
    ["against", baselineText(r, labels)],
  ]);
  out.line();
  out.line(`outcome: ${outcomeText(out, r.outcome.old)} → ${outcomeText(out, r.outcome.new)}`);
  if (r.changes.length === 0) {
    out.line(c.dim("no node of the evaluation changed"));
  } else {
    r.changes.forEach((ch, i) => {
      const lead = i === 0 ? "first change: " : `${"   ".repeat(i)}└─ `;
      const origin = i === r.changes.length - 1 ? `  ${c.yellow("◀ origin")}` : "";
      out.line(`${lead}${changeLine(ch)}${origin}`);
    });
  }
  if (r.inputs.length === 0) return;
  out.line();
  out.line(c.dim("inputs changed:"));
  for (const input of r.inputs) {
    out.line(`  ${input.path}: ${side(input.oldRead, input.old)} → ${side(input.newRead, input.new)}`);
    if (input.previousSources?.length) {
      out.line(`    ${c.dim("before:")}`);
      for (const line of renderSourceLines(input.previousSources, "      ", c)) out.line(line);
    }
    out.line(`    ${c.dim("now:")}`);
    for (const line of renderSourceLines(input.sources, "      ", c)) out.line(line);
    if (input.receivedSince) {
      const none = input.receivedSince.length === 0 ? " nothing on these records and fields" : "";
      out.line(`    ${c.dim(`received since:${none}`)}`);
      for (const rs of input.receivedSince) out.line(`      ${receivedLine(rs)}`);
    }
  }
}
