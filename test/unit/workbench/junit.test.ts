import { describe, expect, it } from "vitest";
import { junitXml, xmlEscape } from "../../../src/cli/workbench/rules-test/junit.js";
import type { TestReport } from "../../../src/cli/workbench/rules-test/rules-test.js";
import { parseXml } from "./xml.js";

const report: TestReport = {
  suites: [
    {
      name: 'dti <limit> & "friends"',
      file: "rules/dti.cases.yaml",
      rule: { source: "saved", name: "dti-limit", ruleId: "r1" },
      cases: [
        { name: "low", passed: true, expected: true, outcome: true, failures: [], against: "data" },
        { name: "high & <odd>", passed: false, expected: true, outcome: false, failures: ["expected outcome true, got false"], against: "data" },
      ],
      coverage: { covered: 1, total: 3, percent: 33.3, uncovered: ["$ and: operand 0 false", "$ and: all true"] },
    },
  ],
  summary: { suites: 1, cases: 2, passed: 1, failed: 1, coverage: { covered: 1, total: 3, percent: 33.3 } },
};

describe("JUnit XML", () => {
  it("is well-formed and carries suites, cases, failures and coverage properties", () => {
    const doc = parseXml(junitXml(report, () => ["<= → false", "├─ var x → 1 & 2"]));
    expect(doc.name).toBe("testsuites");
    expect(doc.attrs).toMatchObject({ tests: "2", failures: "1" });
    const suite = doc.children[0];
    expect(suite.attrs).toMatchObject({ name: 'dti <limit> & "friends"', tests: "2", failures: "1" });
    const props = suite.children.find((c) => c.name === "properties")!.children.map((p) => [p.attrs.name, p.attrs.value]);
    expect(props).toEqual([
      ["coverage", "33.3"],
      ["branches.covered", "1"],
      ["branches.total", "3"],
      ["uncovered", "$ and: operand 0 false"],
      ["uncovered", "$ and: all true"],
      ["ruleId", "r1"],
    ]);
    const cases = suite.children.filter((c) => c.name === "testcase");
    expect(cases.map((c) => c.attrs.name)).toEqual(["low", "high & <odd>"]);
    expect(cases[0].children).toEqual([]);
    const failure = cases[1].children[0];
    expect(failure.attrs.message).toBe("expected outcome true, got false");
    expect(failure.text).toContain("├─ var x → 1 & 2");
  });

  it("the test parser rejects what is not well-formed", () => {
    expect(() => parseXml("<a><b></a>")).toThrow(/mismatched/);
    expect(() => parseXml('<a x="1 & 2"/>')).toThrow(/bare/);
    expect(() => parseXml("<a>1 & 2</a>")).toThrow(/bare/);
    expect(() => parseXml("<a/><b/>")).toThrow(/after the root/);
  });

  it("escapes markup and drops characters XML cannot hold", () => {
    expect(xmlEscape(`<a href="x">&'\u0001`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&apos;");
  });
});
