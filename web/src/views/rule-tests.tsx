/**
 * The rule's tests (`ddsctl studio --tests <cases>`): every case of the suites naming this
 * rule, run against the draft (the same case runner as `rules test`), with branch coverage
 * marked on the expression.
 */
import type { StudioSuite } from "../../../src/portable/workbench/rules-test/studio-suite.js";
import { coverageOf } from "../../../src/portable/workbench/rules-test/coverage.js";
import { runCase, type CaseResult } from "../../../src/portable/workbench/rules-test/rules-test-case.js";
import { alignTrace } from "../../../src/portable/workbench/trace/trace-align.js";
import type { Rule } from "../../../src/contract/schemas/index.js";
import { send, service } from "../api/service.js";
import { ErrorNote, Loading, Outcome, Panel } from "../components/bits.js";
import { CoverageTree } from "../components/coverage-tree.js";
import { useAsync } from "../util/use-async.js";

let suites: Promise<StudioSuite[]> | undefined;
/** The suites the studio was started with (read once). */
function loadSuites(): Promise<StudioSuite[]> {
  return (suites ??= send({ method: "GET", path: "/studio/tests.json", raw: true }).then((r) => (r as { suites: StudioSuite[] }).suites));
}

async function runTests(rule: Rule, expression: unknown) {
  const mine = (await loadSuites()).filter((s) => s.rule === rule.name || s.rule === rule.ruleId);
  const results: { suite: StudioSuite; cases: CaseResult[] }[] = [];
  for (const suite of mine) {
    const cases: CaseResult[] = [];
    for (const c of suite.cases) cases.push(await runCase(c, expression, async () => service));
    results.push({ suite, cases });
  }
  const traces = results.flatMap((r) => r.cases.flatMap((c) => (c.evaluation ? [alignTrace(c.evaluation.evaluationTrace.steps, expression)] : [])));
  return { results, traces, coverage: coverageOf(expression, traces) };
}

/** The tests panel of the rule view. */
export function RuleTests(props: { rule: Rule; expression: unknown }) {
  const key = JSON.stringify(props.expression);
  const run = useAsync(() => runTests(props.rule, props.expression), [key, props.rule.ruleId, props.rule.name]);
  const r = run.data;
  const cases = r?.results.flatMap((x) => x.cases) ?? [];
  const passed = cases.filter((c) => c.passed).length;
  return (
    <Panel title="Tests" id="tests">
      <ErrorNote error={run.error} />
      {!r && !run.error && <Loading what="the tests" />}
      {r && r.results.length === 0 && (
        <p class="muted">
          No cases file names this rule. Start the studio with <code>--tests &lt;file or directory&gt;</code> (the cases files of <code>ddsctl rules test</code>).
        </p>
      )}
      {r && r.results.length > 0 && (
        <>
          <p id="tests-summary">
            {passed} of {cases.length} cases pass against the draft · branch coverage {r.coverage.percent === null ? "n/a" : `${r.coverage.percent}%`} ({r.coverage.covered}/{r.coverage.total})
          </p>
          {r.results.map(({ suite, cases: list }) => (
            <div>
              <h3>
                {suite.name} <span class="muted">{suite.file}</span>
              </h3>
              <ul class="cases">
                {list.map((c) => (
                  <li class={c.passed ? "" : "failing"}>
                    {c.passed ? "✓" : "✗"} {c.name} <span class="muted">expects</span> <Outcome outcome={c.expected} /> <span class="muted">got</span> <Outcome outcome={c.outcome} />
                    {c.failures.length > 0 && <span class="error"> {c.failures.join("; ")}</span>}
                  </li>
                ))}
              </ul>
            </div>
          ))}
          <CoverageTree expression={props.expression} traces={r.traces} />
        </>
      )}
    </Panel>
  );
}
