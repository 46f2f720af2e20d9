import { describe, expect, it } from "vitest";
import { diffTraces } from "../../../src/portable/workbench/trace/trace-diff.js";
import { EXPR, traced } from "./traces.js";

const evaluation = (expression: unknown, data: object) => {
  const t = traced(expression, data);
  return { outcome: Boolean(t.result), evaluationTrace: t };
};

describe("diffTraces", () => {
  it("finds the first changed node and follows the changes down to their origin", () => {
    const old = evaluation(EXPR.credit, { Loan: { amount: 5000 }, Applicant: { creditScore: [700, 650] } });
    const now = evaluation(EXPR.credit, { Loan: { amount: 5000 }, Applicant: { creditScore: [700, 600] } });
    const d = diffTraces(old, now);
    expect(d.outcome).toEqual({ old: true, new: false });
    expect(d.changes.map((c) => `${c.path} ${c.op}: ${JSON.stringify(c.old)} → ${JSON.stringify(c.new)}`)).toEqual([
      "$ and: true → false",
      "and.1 all: true → false",
      "and.1.all.0 var: [700,650] → [700,600]",
    ]);
    expect(d.inputs).toEqual([{ path: "Applicant.creditScore", old: [700, 650], new: [700, 600], oldRead: true, newRead: true }]);
  });

  it("a node only one side evaluated counts as changed", () => {
    const expr = { and: [{ var: "a" }, { var: "b" }] };
    const d = diffTraces(evaluation(expr, { a: true, b: true }), evaluation(expr, { a: false, b: true }));
    expect(d.changes.map((c) => [c.path, c.oldEvaluated, c.newEvaluated])).toEqual([
      ["$", true, true],
      ["and.0", true, true],
    ]);
    expect(d.inputs.map((i) => [i.path, i.oldRead, i.newRead])).toEqual([
      ["a", true, true],
      ["b", true, false],
    ]);
  });

  it("identical evaluations: no change", () => {
    const e = evaluation(EXPR.dti, { Loan: { dti: 0.2 } });
    expect(diffTraces(e, e)).toEqual({ outcome: { old: true, new: true }, changes: [], inputs: [] });
  });

  it("an inner change that leaves the outcome alone is still found", () => {
    const d = diffTraces(evaluation(EXPR.dti, { Loan: { dti: 0.2 } }), evaluation(EXPR.dti, { Loan: { dti: 0.3 } }));
    expect(d.changes.map((c) => c.path)).toEqual(["<=.0"]);
  });
});
