import { describe, expect, it } from "vitest";
import { compileExpression, JsonLogicCompileError } from "../../../src/portable/json-logic/index.js";
import { referenceOutcome } from "./reference.js";

const run = (rule: unknown, data: object = {}, extraOperators = true): unknown =>
  compileExpression(rule, { extraOperators }).evaluate(data).result;

describe("extra operators", () => {
  it("sum adds an array argument, or all arguments flattened one level", () => {
    expect(run({ sum: { var: "xs" } }, { xs: [1, "2", 3.5] })).toBe(6.5);
    expect(run({ sum: [1, [2, 3], 4] })).toBe(10);
    expect(run({ sum: [] })).toBe(0);
    expect(run({ sum: { var: "nope" } })).toBe(0);
    expect(run({ sum: [[]] })).toBe(0);
    expect(run({ sum: { var: "xs" } }, { xs: [1, "x"] })).toBeNaN();
  });

  it("avg is the mean, or null when there is nothing to average", () => {
    expect(run({ avg: { var: "xs" } }, { xs: [2, 4, 9] })).toBe(5);
    expect(run({ avg: [1, 2] })).toBe(1.5);
    expect(run({ avg: { var: "xs" } }, { xs: [] })).toBeNull();
    expect(run({ avg: { var: "nope" } })).toBeNull();
  });

  it("count counts an array's elements, or the arguments", () => {
    expect(run({ count: { var: "xs" } }, { xs: [1, null, 3] })).toBe(3);
    expect(run({ count: { var: "nope" } })).toBe(0);
    expect(run({ count: [1, 2, null] })).toBe(3);
    expect(run({ count: [] })).toBe(0);
    expect(run({ count: "one" })).toBe(1);
  });

  it("min/max accept a single array argument (empty → null)", () => {
    const data = { xs: [3, "1", 2], none: [] };
    expect(run({ min: { var: "xs" } }, data)).toBe(1);
    expect(run({ max: { var: "xs" } }, data)).toBe(3);
    expect(run({ min: { var: "none" } }, data)).toBeNull();
    expect(run({ max: [{ var: "none" }] }, data)).toBeNull();
    expect(run({ max: { var: "big" } }, { big: Array.from({ length: 200_000 }, (_, i) => i) })).toBe(199_999);
  });

  it("min/max with other argument lists behave exactly as json-logic-js", () => {
    for (const rule of [{ min: [] }, { max: [] }, { min: [3, "1", 2] }, { max: [1, null] }, { min: [[1], [2]] }, { max: ["a"] }, { min: 5 }]) {
      expect(run(rule)).toEqual((referenceOutcome(rule, {}) as { value: unknown }).value);
    }
  });

  it("can be switched off for exact json-logic-js behaviour", () => {
    expect(run({ min: [[1, 2]] }, {}, false)).toBeNaN();
    expect(run({ max: [[]] }, {}, false)).toBe(0);
    expect(() => compileExpression({ sum: [1] }, { extraOperators: false })).toThrow(JsonLogicCompileError);
    expect(() => compileExpression({ sum: [1] }, { extraOperators: false })).toThrow(/extra operators are disabled/);
  });

  it("are traced like any operator", () => {
    const { steps } = compileExpression({ sum: { var: "xs" } }).evaluate({ xs: [1, 2] }, { trace: true });
    expect(steps).toEqual({
      op: "sum",
      result: 3,
      passed: true,
      children: [{ op: "var", args: ["xs"], result: [1, 2], passed: true, children: [] }],
    });
  });
});
