import { describe, expect, it } from "vitest";
import { TraceStep as TraceStepSchema } from "../../../src/contract/schemas/evaluation.js";
import { compileExpression, type TraceStep } from "../../../src/portable/json-logic/index.js";

function trace(rule: unknown, data: object): TraceStep {
  const { steps, error } = compileExpression(rule).evaluate(data, { trace: true });
  expect(error).toBeUndefined();
  if (steps === undefined) throw new Error("no steps");
  return steps;
}

describe("trace structure", () => {
  it("shows an `and` stopping at the failing argument", () => {
    const rule = { and: [{ ">": [{ var: "x" }, 1] }, { "<": [{ var: "y" }, 0] }, { "==": [1, 1] }] };
    const steps = trace(rule, { x: 5, y: 3 });
    expect(steps).toMatchObject({ op: "and", result: false, passed: false });
    expect(steps.children).toHaveLength(2);
    expect(steps.children[0]).toMatchObject({ op: ">", result: true, passed: true });
    expect(steps.children[1]).toMatchObject({ op: "<", result: false, passed: false });
    expect(steps.children[0].children).toEqual([
      { op: "var", args: ["x"], result: 5, passed: true, children: [] },
      { op: "value", result: 1, passed: true, children: [] },
    ]);
  });

  it("shows an `or` short-circuiting on the first truthy argument", () => {
    const steps = trace({ or: [{ var: "a" }, { var: "b" }] }, { a: "yes", b: 0 });
    expect(steps.result).toBe("yes");
    expect(steps.children.map((c) => c.args)).toEqual([["a"]]);
  });

  it("shows the evaluated conditions of an `if` and the branch it chose", () => {
    const rule = { if: [{ var: "a" }, "A", { var: "b" }, "B", "C"] };
    const second = trace(rule, { a: false, b: true });
    expect(second.result).toBe("B");
    expect(second.children.map((c) => [c.op, c.result])).toEqual([["var", false], ["var", true], ["value", "B"]]);
    const otherwise = trace(rule, { a: 0, b: "" });
    expect(otherwise.children.map((c) => [c.op, c.result])).toEqual([["var", 0], ["var", ""], ["value", "C"]]);
    const first = trace(rule, { a: 1 });
    expect(first.children.map((c) => c.result)).toEqual([1, "A"]);
  });

  it("records var defaults in args and literal arrays as value nodes", () => {
    const steps = trace({ in: [{ var: ["state", "NY"] }, ["CA", "NY"]] }, {});
    expect(steps.children).toEqual([
      { op: "var", args: ["state", "NY"], result: "NY", passed: true, children: [] },
      { op: "value", result: ["CA", "NY"], passed: true, children: [] },
    ]);
  });

  it("keeps at most 20 element sub-trees, then one truncated node", () => {
    const rule = { all: [{ var: "xs" }, { ">": [{ var: "" }, 0] }] };
    const steps = trace(rule, { xs: Array.from({ length: 25 }, (_, i) => i + 1) });
    expect(steps.result).toBe(true);
    expect(steps.children).toHaveLength(1 + 20 + 1);
    expect(steps.children[0]).toMatchObject({ op: "var", args: ["xs"] });
    expect(steps.children.slice(1, 21).every((c) => c.op === ">" && c.passed)).toBe(true);
    expect(steps.children[21]).toEqual({ op: "truncated", result: 5, passed: true, children: [] });
  });

  it("does not truncate at exactly 20 elements and stops where `some` decided", () => {
    const map = trace({ map: [{ var: "xs" }, { "*": [{ var: "" }, 2] }] }, { xs: Array.from({ length: 20 }, () => 1) });
    expect(map.children).toHaveLength(21);
    const some = trace({ some: [{ var: "xs" }, { "==": [{ var: "" }, 3] }] }, { xs: [1, 2, 3, 4, 5] });
    expect(some.children.map((c) => c.result)).toEqual([[1, 2, 3, 4, 5], false, false, true]);
  });

  it("puts reduce's array, initial value and per-element steps in order", () => {
    const rule = { reduce: [{ var: "xs" }, { "+": [{ var: "current" }, { var: "accumulator" }] }, 10] };
    const steps = trace(rule, { xs: [1, 2] });
    expect(steps.result).toBe(13);
    expect(steps.children.map((c) => [c.op, c.result])).toEqual([["var", [1, 2]], ["value", 10], ["+", 11], ["+", 13]]);
  });

  it("records inputs for top-level reads only, traced or not", () => {
    const rule = { some: [{ var: "items" }, { ">": [{ var: "v" }, { var: "limit" }] }] };
    const data = { items: [{ v: 3, limit: 1 }], limit: 100 };
    for (const traceOn of [false, true]) {
      const { inputs, result } = compileExpression(rule).evaluate(data, { trace: traceOn });
      expect(result).toBe(true);
      expect(inputs).toEqual({ items: data.items });
    }
    const missing = compileExpression({ missing: ["a", "b.c", "d"] }).evaluate({ a: 1, d: "" });
    expect(missing.inputs).toEqual({ a: 1, "b.c": null, d: "" });
    expect(missing.result).toEqual(["b.c", "d"]);
  });

  it("omits steps when not tracing and matches the contract's TraceStep schema", () => {
    const rule = { if: [{ missing: ["a"] }, "no a", { map: [{ var: "a" }, { var: "" }] }] };
    expect(compileExpression(rule).evaluate({ a: [1] }).steps).toBeUndefined();
    expect(TraceStepSchema.safeParse(trace(rule, { a: [1] })).success).toBe(true);
  });
});
