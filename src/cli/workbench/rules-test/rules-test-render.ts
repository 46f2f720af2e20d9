import type { Output } from "../../output/output.js";
import { renderTraceNodes, type TraceColors } from "../trace/render-trace.js";
import type { CaseResult, TestReport } from "./rules-test.js";
import { alignTrace } from "../../../portable/workbench/trace/trace-align.js";

/** The trace lines of a case (the fails view: deciding path and failures). */
export function caseTraceLines(c: CaseResult, colors?: TraceColors): string[] {
  if (!c.evaluation) return [];
  const t = c.evaluation.evaluationTrace;
  return renderTraceNodes(alignTrace(t.steps, t.expression), { colors, explain: "fails", paths: true });
}

const pct = (p: number | null) => (p === null ? "n/a: no branches" : `${p}%`);

/**
 * `rules test`: per suite, PASS/FAIL per case (a failing case with its unmet expectations
 * and its trace), the suite's branch coverage and the branches no case exercised; then a
 * summary line.
 */
export function renderTestReport(out: Output, report: TestReport): void {
  const { c } = out;
  for (const suite of report.suites) {
    out.line(`${c.bold(suite.name)}  ${c.dim(suite.file)}`);
    if (suite.error) out.line(`  ${c.red("error:")} ${suite.error}`);
    for (const k of suite.cases) {
      out.line(`  ${k.passed ? c.green("PASS") : c.red("FAIL")}  ${k.name}`);
      if (k.passed || suite.error) continue;
      for (const f of k.failures) out.line(`        ${f}`);
      for (const line of caseTraceLines(k, c)) out.line(`        ${line}`);
    }
    const cov = suite.coverage;
    out.line(`  coverage ${cov.covered}/${cov.total} branches (${pct(cov.percent)})`);
    for (const b of cov.uncovered) out.line(`    ${c.yellow("not exercised:")} ${b}`);
    out.line();
  }
  const s = report.summary;
  const failed = s.failed > 0 ? c.red(`${s.failed} failed`) : `${s.failed} failed`;
  out.line(`${s.suites} suite(s), ${s.cases} case(s): ${c.green(`${s.passed} passed`)}, ${failed}; branch coverage ${s.coverage.covered}/${s.coverage.total} (${pct(s.coverage.percent)})`);
}
