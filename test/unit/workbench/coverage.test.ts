import { describe, expect, it } from "vitest";
import { branchPoints, coverageOf } from "../../../src/portable/workbench/rules-test/coverage.js";
import { alignTrace } from "../../../src/portable/workbench/trace/trace-align.js";
import { EXPR, traced } from "./traces.js";

const cover = (expression: unknown, cases: object[]) =>
  coverageOf(
    expression,
    cases.map((d) => alignTrace(traced(expression, d).steps, expression)),
  );

describe("branch points", () => {
  it("and/or: one per operand plus all; if: one per condition plus else; all/some/none: true and false", () => {
    const expr = { and: [{ or: [{ var: "a" }, { var: "b" }] }, { if: [{ var: "c" }, 1, 2] }, { some: [{ var: "xs" }, { var: "" }] }] };
    expect(branchPoints(expr)).toEqual([
      { path: "$", op: "and", labels: ["operand 0 false", "operand 1 false", "operand 2 false", "all true"] },
      { path: "and.0", op: "or", labels: ["operand 0 true", "operand 1 true", "all false"] },
      { path: "and.1", op: "if", labels: ["condition 0 taken", "else taken"] },
      { path: "and.2", op: "some", labels: ["true", "false"] },
    ]);
  });
});

describe("coverage of a known rule set", () => {
  it("credit: 5 branches; a passing and a failing score case cover 4 (80%)", () => {
    const c = cover(EXPR.credit, [
      { Loan: { amount: 5000 }, Applicant: { creditScore: [700] } },
      { Loan: { amount: 5000 }, Applicant: { creditScore: [600] } },
    ]);
    expect(c).toEqual({ covered: 4, total: 5, percent: 80, uncovered: ["$ and: operand 0 false"] });
  });

  it("tiers: three outcomes, two exercised (66.7%)", () => {
    const c = cover(EXPR.tiers, [{ score: 500 }, { score: 700 }]);
    expect(c).toEqual({ covered: 2, total: 3, percent: 66.7, uncovered: ["$ if: condition 1 taken"] });
  });

  it("anyFlag: or over three operands with a some inside (6 branches)", () => {
    const c = cover(EXPR.anyFlag, [{ flags: { fraud: true }, docs: [] }]);
    expect(c).toEqual({
      covered: 1,
      total: 6,
      percent: 16.7,
      uncovered: ["$ or: operand 1 true", "$ or: operand 2 true", "$ or: all false", "or.2 some: true", "or.2 some: false"],
    });
    const full = cover(EXPR.anyFlag, [
      { flags: { fraud: true } },
      { flags: { sanction: true } },
      { flags: {}, docs: [{ status: "forged" }] },
      { flags: {}, docs: [{ status: "ok" }] },
    ]);
    expect(full).toEqual({ covered: 6, total: 6, percent: 100, uncovered: [] });
  });

  it("a rule without branches has no percentage", () => {
    expect(cover(EXPR.dti, [{ Loan: { dti: 0.1 } }])).toEqual({ covered: 0, total: 0, percent: null, uncovered: [] });
  });

  it("branches inside per-element logic are hit by any element", () => {
    const expr = { some: [{ var: "xs" }, { or: [{ var: "a" }, { var: "b" }] }] };
    const c = cover(expr, [{ xs: [{ a: 1 }, { b: 0 }] }]);
    // some stops at the first element that holds: the second is never evaluated.
    expect(c.uncovered).toEqual(["$ some: false", "some.1 or: operand 1 true", "some.1 or: all false"]);
    const both = cover(expr, [{ xs: [{ b: 0 }, { a: 0, b: 1 }] }, { xs: [{ a: 1 }] }, { xs: [] }]);
    expect(both).toEqual({ covered: 5, total: 5, percent: 100, uncovered: [] });
  });
});
