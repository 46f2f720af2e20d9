import { describe, expect, it } from "vitest";
import { alignTrace, decidingPath, preOrder } from "../../../src/portable/workbench/trace/trace-align.js";
import { buildTraceReport } from "../../../src/portable/workbench/trace/trace-report.js";
import { EXPR, traced } from "./traces.js";

const align = (expression: unknown, data: object) => {
  const t = traced(expression, data);
  return alignTrace(t.steps, expression);
};
const keys = (expression: unknown, data: object) => preOrder(align(expression, data)).map((n) => n.key);
const decided = (expression: unknown, data: object) => preOrder(align(expression, data)).filter((n) => n.decided).map((n) => n.key);

describe("alignTrace: every node placed in the expression", () => {
  it("paths follow operator and argument index; element sub-trees get an index in the key", () => {
    expect(keys(EXPR.credit, { Loan: { amount: 5000 }, Applicant: { creditScore: [700, 600] } })).toEqual([
      "$",
      "and.0",
      "and.0.>=.0",
      "and.0.>=.1",
      "and.1",
      "and.1.all.0",
      "and.1.all.1[0]",
      "and.1.all.1[0].>=.0",
      "and.1.all.1[0].>=.1",
      "and.1.all.1[1]",
      "and.1.all.1[1].>=.0",
      "and.1.all.1[1].>=.1",
    ]);
    const nodes = preOrder(align(EXPR.credit, { Loan: { amount: 5000 }, Applicant: { creditScore: [700, 600] } }));
    expect(nodes.find((n) => n.key === "and.1.all.1[1].>=.0")!.path).toBe("and.1.all.1.>=.0");
  });

  it("if: a false condition skips its branch; the true one is followed by its branch", () => {
    expect(keys(EXPR.tiers, { score: 650 })).toEqual(["$", "if.0", "if.0.<.0", "if.0.<.1", "if.2", "if.2.<.0", "if.2.<.1", "if.3"]);
    expect(keys(EXPR.tiers, { score: 500 }).filter((k) => !k.includes("<"))).toEqual(["$", "if.0", "if.1"]);
    const roles = preOrder(align(EXPR.tiers, { score: 900 })).filter((n) => n.key.split(".").length === 2).map((n) => `${n.key}:${n.role}`);
    expect(roles).toEqual(["if.0:condition", "if.2:condition", "if.4:else"]);
  });

  it("the unary shorthand is argument 0; arrays holding logic index their items", () => {
    expect(keys(EXPR.notLarge, { amount: 1 })).toEqual(["$", "!.0", "!.0.>.0", "!.0.>.1"]);
    expect(keys({ in: [{ var: "x" }, [{ var: "a" }, "b"]] }, { x: "b", a: "z" })).toEqual(["$", "in.0", "in.1", "in.1.0", "in.1.1"]);
  });

  it("reduce: source, initial, then elements", () => {
    const expr = { reduce: [{ var: "xs" }, { "+": [{ var: "current" }, { var: "accumulator" }] }, 0] };
    const nodes = preOrder(align(expr, { xs: [1, 2] })).filter((n) => n.key.split(".").length === 2);
    expect(nodes.map((n) => `${n.key}:${n.role}`)).toEqual(["reduce.0:source", "reduce.2:initial", "reduce.1[0]:element", "reduce.1[1]:element"]);
  });
});

describe("deciders and the deciding path", () => {
  it("and: the first falsy operand; all true: the last", () => {
    expect(decided({ and: [true, false, true] }, {})).toEqual(["and.1"]);
    expect(decided({ and: [true, 1, "x"] }, {})).toEqual(["and.2"]);
  });

  it("or: the first truthy operand, or the last", () => {
    expect(decided({ or: [0, "", 5, 6] }, {})).toEqual(["or.2"]);
    expect(decided({ or: [0, false] }, {})).toEqual(["or.1"]);
  });

  it("if: condition and branch; else alone; no else: the last condition", () => {
    expect(decided({ if: [false, "a", true, "b", "c"] }, {})).toEqual(["if.2", "if.3"]);
    expect(decided({ if: [false, "a", false, "b", "c"] }, {})).toEqual(["if.4"]);
    expect(decided({ if: [false, "a", false, "b"] }, {})).toEqual(["if.2"]);
  });

  it("all/some/none: the deciding element; an empty array: the array", () => {
    expect(decided({ some: [{ var: "xs" }, { ">": [{ var: "" }, 2] }] }, { xs: [1, 3, 5] })).toEqual(["some.1[1]"]);
    expect(decided({ none: [{ var: "xs" }, { ">": [{ var: "" }, 2] }] }, { xs: [1, 2] })).toEqual(["none.1[1]"]);
    expect(decided({ all: [{ var: "xs" }, { ">": [{ var: "" }, 2] }] }, { xs: [] })).toEqual(["all.0"]);
  });

  it("comparisons decide nothing alone: the path stops there", () => {
    const root = align(EXPR.credit, { Loan: { amount: 5000 }, Applicant: { creditScore: [700, 600] } });
    expect(decidingPath(root).map((n) => n.key)).toEqual(["$", "and.1", "and.1.all.1[1]"]);
  });

  it("buildTraceReport: deciding path and inputs without lineage", () => {
    const t = traced(EXPR.dti, { Loan: { dti: 0.5 } });
    const report = buildTraceReport({ contextId: null, asOf: null, outcome: false, evaluationTrace: { ...t, inputs: t.inputs } });
    expect(report.decidingPath).toEqual([{ path: "$", op: "<=", result: false, passed: false }]);
    expect(report.inputs).toEqual([{ path: "Loan.dti", value: 0.5, sources: [] }]);
  });
});
