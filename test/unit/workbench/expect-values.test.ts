import { describe, expect, it } from "vitest";
import { checkExpectedValues, resolveNodeRef, stableJson, valueAt } from "../../../src/portable/workbench/trace/expect-values.js";
import { alignTrace } from "../../../src/portable/workbench/trace/trace-align.js";
import { EXPR, traced } from "./traces.js";

const rootOf = (expression: unknown, data: object) => alignTrace(traced(expression, data).steps, expression);
const credit = rootOf(EXPR.credit, { Loan: { amount: 5000 }, Applicant: { creditScore: [700, 600] } });

describe("expectValues references", () => {
  it("dotted and pointer paths name the same node; a trailing operator only checks", () => {
    for (const ref of ["and.1", "and.1.all", "/and/1", "and/1/all", "$.and.1"]) {
      expect(valueAt(credit, EXPR.credit, ref), ref).toEqual({ found: true, value: false });
    }
    expect(valueAt(credit, EXPR.credit, "$")).toEqual({ found: true, value: false });
    expect(valueAt(credit, EXPR.credit, "and.0.>=.0")).toEqual({ found: true, value: 5000 });
  });

  it("inside per-element logic: all elements as an array, or one picked with [i]", () => {
    expect(valueAt(credit, EXPR.credit, "and.1.all.1")).toEqual({ found: true, value: [true, false] });
    expect(valueAt(credit, EXPR.credit, "and.1.all.1.>=.0")).toEqual({ found: true, value: [700, 600] });
    expect(valueAt(credit, EXPR.credit, "and.1.all.1[1].>=.0")).toEqual({ found: true, value: 600 });
  });

  it("var:<path> names an input", () => {
    expect(valueAt(credit, EXPR.credit, "var:Applicant.creditScore")).toEqual({ found: true, value: [700, 600] });
    expect(valueAt(credit, EXPR.credit, "var:Loan.nope")).toMatchObject({ found: false });
  });

  it("a division operator is ~1 in pointer form", () => {
    const expr = { "<": [{ "/": [{ var: "a" }, { var: "b" }] }, 1] };
    const root = rootOf(expr, { a: 1, b: 4 });
    expect(valueAt(root, expr, "/</0/~1/0")).toEqual({ found: true, value: 1 });
    expect(valueAt(root, expr, "<.0./")).toEqual({ found: true, value: 0.25 });
  });

  it("a node a short circuit skipped is reported, not compared", () => {
    const root = rootOf({ and: [false, { var: "x" }] }, { x: 1 });
    expect(valueAt(root, { and: [false, { var: "x" }] }, "and.1")).toEqual({ found: false, reason: "and.1 was not evaluated (a branch before it decided)" });
  });

  it("bad references say why", () => {
    expect(resolveNodeRef(EXPR.credit, "or.1")).toBe('expected the operator "and" at $, found "or"');
    expect(resolveNodeRef(EXPR.credit, "and.7")).toBe('"7" is not an argument index of $ (it has 2)');
    expect(resolveNodeRef(EXPR.credit, "and.0[1]")).toMatch(/not per-element logic/);
    expect(resolveNodeRef(EXPR.credit, "and.0.>=.1.x")).toMatch(/is a literal/);
  });

  it("checkExpectedValues lists every mismatch", () => {
    expect(checkExpectedValues(credit, EXPR.credit, { "and.1": false, "and.0.>=.0": 5000, "var:Loan.amount": 1 })).toEqual(["expected var:Loan.amount = 1, got 5000"]);
  });

  it("stableJson ignores key order", () => {
    expect(stableJson({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe(stableJson({ a: [1, { c: 3, d: 2 }], b: 1 }));
    expect(stableJson(undefined)).toBe("null");
  });
});
