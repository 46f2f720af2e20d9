/**
 * JUnit XML for CI (the de-facto schema Jenkins, GitLab and GitHub reporters read): one
 * `<testsuite>` per rule suite, one `<testcase>` per case, a `<failure>` with the unmet
 * expectations and the case's trace, and the suite's branch coverage as `<properties>`.
 */
import type { CaseResult, SuiteResult, TestReport } from "./rules-test.js";
import { pushAll } from "../../../portable/arrays.js";

/** Escapes text for XML content and attribute values. */
export function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[ch]!)
    // Characters XML 1.0 cannot hold at all (control characters other than tab, LF, CR).
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");
}

const attrs = (pairs: [string, string | number][]) => pairs.map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`).join("");

function testcase(suite: SuiteResult, c: CaseResult, traceOf: (c: CaseResult) => string[]): string[] {
  const open = `    <testcase${attrs([["name", c.name], ["classname", suite.name], ["time", 0]])}`;
  if (c.passed) return [`${open}/>`];
  const body = [...c.failures, "", ...traceOf(c)].join("\n");
  return [`${open}>`, `      <failure${attrs([["message", c.failures[0] ?? "failed"], ["type", "assertion"]])}>${xmlEscape(body)}</failure>`, "    </testcase>"];
}

function properties(suite: SuiteResult): string[] {
  const cov = suite.coverage;
  const props: [string, string | number][] = [
    ["coverage", cov.percent === null ? "n/a" : cov.percent],
    ["branches.covered", cov.covered],
    ["branches.total", cov.total],
    ...cov.uncovered.map((b): [string, string] => ["uncovered", b]),
  ];
  if (suite.rule.ruleId) props.push(["ruleId", suite.rule.ruleId]);
  return ["    <properties>", ...props.map(([name, value]) => `      <property${attrs([["name", name], ["value", value]])}/>`), "    </properties>"];
}

/** The JUnit XML document of a test report; `traceOf` gives a failing case's trace lines. */
export function junitXml(report: TestReport, traceOf: (c: CaseResult) => string[]): string {
  const s = report.summary;
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites${attrs([["name", "ddsctl rules test"], ["tests", s.cases], ["failures", s.failed], ["errors", 0], ["time", 0]])}>`,
  ];
  for (const suite of report.suites) {
    const failures = suite.cases.filter((c) => !c.passed).length;
    lines.push(`  <testsuite${attrs([["name", suite.name], ["tests", suite.cases.length], ["failures", failures], ["errors", 0], ["skipped", 0], ["time", 0], ["file", suite.file]])}>`);
    pushAll(lines, properties(suite));
    for (const c of suite.cases) pushAll(lines, testcase(suite, c, traceOf));
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>", "");
  return lines.join("\n");
}
