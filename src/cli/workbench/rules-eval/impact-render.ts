import type { Output } from "../../output/output.js";
import type { ImpactReport, ImpactRow } from "../../../portable/workbench/rules-eval/impact.js";

const outcomeWord = (o: boolean | null | undefined) => (o === true ? "PASS" : o === false ? "FAIL" : "?");

/** The saved rule's outcome and where it came from (`beforeFrom` in --json). */
const savedOutcome = (x: ImpactRow) =>
  `${outcomeWord(x.before)} (${x.beforeFrom === "dry-run" ? "dry run: no stored evaluation" : "stored evaluation"})`;

/**
 * `rules eval --all-contexts`: pass/fail counts over the contexts, and with `--against`
 * how many would flip each way, then the flipping contexts (and any that failed to
 * evaluate) as a table: each with the saved rule's outcome there and where that came from,
 * its stored evaluation or, where none is stored, a dry run of the saved rule.
 */
export async function renderImpact(out: Output, r: ImpactReport, label: string): Promise<void> {
  const { c } = out;
  const types = r.appliesTo.length > 0 ? ` of type ${r.appliesTo.join(", ")} (the rule's context types)` : "";
  out.line(`${label} over ${r.contexts} context(s)${types}: ${c.green(`${r.passed} pass`)}, ${c.red(`${r.failed} fail`)}${r.errors ? `, ${r.errors} not evaluated` : ""}`);
  if (r.against) {
    const a = r.against;
    const flips = a.passToFail + a.failToPass;
    out.line(`against ${a.name} (${a.ruleId}): ${flips} would flip (fail → pass ${a.failToPass}, pass → fail ${a.passToFail}), ${a.unchanged} unchanged${a.unknown ? `, ${a.unknown} unknown` : ""}`);
    const flipped = r.results.filter((x) => x.flip);
    if (flipped.length > 0) {
      out.line();
      await out.table(flipped, [
        { header: "FLIP", get: (x) => x.flip, style: (t) => (t.endsWith("pass") ? c.green(t) : c.red(t)) },
        { header: "NAME", get: (x) => x.name ?? "" },
        { header: "TYPE", get: (x) => x.type ?? "" },
        { header: "SAVED RULE'S OUTCOME", get: (x) => savedOutcome(x) },
        { header: "CONTEXT ID", get: (x) => x.contextId },
      ]);
    }
  }
  const failedRuns = r.results.filter((x) => x.error);
  if (failedRuns.length > 0) {
    out.line();
    await out.table(failedRuns, [
      { header: "CONTEXT ID", get: (x) => x.contextId },
      { header: "OUTCOME", get: (x) => outcomeWord(x.outcome) },
      { header: "ERROR", get: (x) => x.error },
    ]);
  }
}
