import { describe, expect, it } from "vitest";
import { renderTraceTree, type ExplainMode } from "../../../src/cli/workbench/trace/render-trace.js";
import { formatTraceValue } from "../../../src/portable/workbench/trace/trace-value.js";
import { expectGolden } from "./golden.js";
import { EXPR, traced } from "./traces.js";

/** The tree of one evaluation as plain text (colour off), one line per node. */
function tree(expression: unknown, data: object, explain: ExplainMode = "full", paths = false): string {
  const t = traced(expression, data);
  return `${renderTraceTree(t.steps, undefined, { expression, explain, paths }).join("\n")}\n`;
}

const scores = (n: number, failAt: number) => Array.from({ length: n }, (_, i) => (i === failAt ? 600 : 700 + i));

describe("trace renderer goldens (colour off)", () => {
  it("a passing comparison", () => {
    expectGolden("dti-pass-full", tree(EXPR.dti, { Loan: { dti: 0.31 } }));
  });

  it("and/all failing: deciding operand and element marked", () => {
    expectGolden("credit-fail-full", tree(EXPR.credit, { Loan: { amount: 5000 }, Applicant: { creditScore: [700, 600, 650] } }));
  });

  it("--explain fails folds passed siblings into counts", () => {
    expectGolden("credit-fail-fails", tree(EXPR.credit, { Loan: { amount: 5000 }, Applicant: { creditScore: [700, 710, 720, 600, 650] } }, "fails"));
  });

  it("a long array: values cut with a count, element traces past the cap counted", () => {
    expectGolden("credit-long-array", tree(EXPR.credit, { Loan: { amount: 5000 }, Applicant: { creditScore: scores(25, 23) } }, "fails"));
  });

  it("if: the condition that chose and the chosen branch, with paths", () => {
    expectGolden("tiers-review-paths", tree(EXPR.tiers, { score: 650 }, "full", true));
  });

  it("if: the else branch", () => {
    expectGolden("tiers-else", tree(EXPR.tiers, { score: 720 }));
  });

  it("or with some: every failed operand shown under fails", () => {
    const data = { flags: { fraud: false, sanction: null }, docs: [{ status: "ok" }, { status: "ok" }] };
    expectGolden("any-flag-fails", tree(EXPR.anyFlag, data, "fails"));
  });

  it("or decided by its first truthy operand", () => {
    expectGolden("any-flag-pass", tree(EXPR.anyFlag, { flags: { fraud: false, sanction: true }, docs: [] }));
  });

  it("unary not: its argument decides", () => {
    expectGolden("not-large", tree(EXPR.notLarge, { amount: 2000000 }));
  });

  it("auto: full for small trees, fails for large ones", () => {
    const data = { Loan: { amount: 5000 }, Applicant: { creditScore: scores(25, 23) } };
    expect(tree(EXPR.credit, data, "auto")).toBe(tree(EXPR.credit, data, "fails"));
    const small = { Loan: { amount: 5000 }, Applicant: { creditScore: [700, 600] } };
    expect(tree(EXPR.credit, small, "auto")).toBe(tree(EXPR.credit, small, "full"));
  });
});

describe("formatTraceValue", () => {
  it("cuts long arrays with a count", () => {
    expect(formatTraceValue([620, 700, 640, 655, 690, 1, 2, 3], { maxItems: 2 })).toBe("[620, 700, … 6 more]");
    expect(formatTraceValue([1, 2, 3])).toBe("[1, 2, 3]");
    expect(formatTraceValue({ a: 1, b: "x" })).toBe('{"a": 1, "b": "x"}');
    expect(formatTraceValue(undefined)).toBe("undefined");
    expect(formatTraceValue("x".repeat(70))).toBe(`"${"x".repeat(60)}…"`);
  });
});
