import { describe, expect, it } from "vitest";
import {
  collectVarPaths,
  compileExpression,
  JsonLogicCompileError,
  validateRuleExpression,
  type RuleProblem,
} from "../../../src/portable/json-logic/index.js";

function compileProblems(rule: unknown): RuleProblem[] {
  try {
    compileExpression(rule);
  } catch (error) {
    if (error instanceof JsonLogicCompileError) return error.problems;
    throw error;
  }
  return [];
}

describe("compile errors", () => {
  it("refuses a var path with a reserved segment", () => {
    expect(() => compileExpression({ var: "a.__proto__.x" })).toThrow(JsonLogicCompileError);
    expect(compileProblems({ var: "a.__proto__.x" })).toEqual([
      { path: "var", message: 'var path "a.__proto__.x" uses the reserved segment "__proto__"' },
    ]);
    expect(compileProblems({ var: ["constructor", 1] })).toMatchObject([{ path: "var.0" }]);
    expect(compileProblems({ missing: ["ok", "x.prototype"] })).toMatchObject([{ path: "missing.1" }]);
    expect(compileProblems({ missing_some: [1, ["__proto__"]] })).toMatchObject([{ path: "missing_some.1.0" }]);
  });

  it("refuses unknown operators, including object internals and dotted names", () => {
    const problems = compileProblems({ or: [{ toString: [] }, { "var.length": "x" }, { foo: 1 }] });
    expect(problems.map((p) => p.path)).toEqual(["or.0.toString", "or.1.var.length", "or.2.foo"]);
    expect(problems[2].message).toBe('unknown operator "foo"');
    expect(compileProblems(JSON.parse('{"__proto__": [1]}'))).toMatchObject([{ path: "__proto__" }]);
  });

  it("refuses `method`, which would call arbitrary methods", () => {
    expect(compileProblems({ method: ["abc", "toUpperCase"] })).toEqual([
      { path: "method", message: 'operator "method" is not supported: it would call arbitrary JavaScript methods' },
    ]);
  });

  it("refuses calls json-logic-js can never evaluate", () => {
    expect(compileProblems({ "*": [] })).toMatchObject([{ path: "*" }]);
    expect(compileProblems({ missing_some: [1] })).toMatchObject([{ path: "missing_some" }]);
    expect(compileProblems({ missing_some: [1, null] })).toMatchObject([{ path: "missing_some" }]);
  });

  it("lists every problem, with the first in the message", () => {
    const rule = { and: [{ var: "a.constructor" }, { ">": [{ nope: [] }, 1] }] };
    const problems = compileProblems(rule);
    expect(problems.map((p) => p.path)).toEqual(["and.0.var", "and.1.>.0.nope"]);
    expect(() => compileExpression(rule)).toThrow(/and\.0\.var: .*\(and 1 more\)/);
  });

  it("accepts what json-logic-js accepts, such as multi-key objects and object paths", () => {
    expect(compileExpression({ x: 1, y: { foo: 2 } }).evaluate({}).result).toEqual({ x: 1, y: { foo: 2 } });
    expect(compileExpression({ var: {} }).evaluate({}).result).toBeNull();
    expect(compileExpression({ if: [] }).evaluate({}).result).toBeNull();
  });
});

describe("validateRuleExpression", () => {
  it("accepts a valid rule", () => {
    expect(validateRuleExpression({ and: [{ ">=": [{ var: "Loan.amount" }, 1000] }, { sum: [1, 2] }] })).toEqual([]);
  });

  it("reports objects that are not one operation", () => {
    expect(validateRuleExpression({ and: [{ a: 1, b: 2 }, {}] })).toEqual([
      { path: "and.0", message: 'an operation object must have exactly one key (found "a", "b")' },
      { path: "and.1", message: "an operation object must have exactly one key (found none)" },
    ]);
  });

  it("reports values that are not JSON", () => {
    const problems = validateRuleExpression({ cat: [undefined, NaN, () => 1, new Date(0), 1n] });
    expect(problems.map((p) => p.path)).toEqual(["cat.0", "cat.1", "cat.2", "cat.3", "cat.4"]);
    expect(problems[1].message).toBe("NaN is not a JSON value");
  });

  it("reports reserved segments in literal parts of computed var paths", () => {
    expect(validateRuleExpression({ var: { cat: ["a.", "__proto__"] } })).toEqual([
      { path: "var.cat.1", message: 'var path part "__proto__" uses the reserved segment "__proto__"' },
    ]);
    expect(validateRuleExpression({ var: [{ if: [true, "x.prototype.y"] }, 0] })).toMatchObject([
      { path: "var.0.if.1" },
    ]);
    expect(validateRuleExpression({ var: [["__proto__"]] })).toMatchObject([{ path: "var.0.0" }]);
  });

  it("collects compiler problems and strict problems together", () => {
    const problems = validateRuleExpression({ or: [{ foo: 1 }, { var: "__proto__" }, { a: 1, b: 2 }] });
    expect(problems.map((p) => p.path)).toEqual(["or.0.foo", "or.1.var", "or.2"]);
  });

  it("survives absurdly deep and circular input", () => {
    let deep: unknown = { var: "a" };
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(validateRuleExpression(deep)).toEqual([
      expect.objectContaining({ message: "expression is nested deeper than 256 levels" }),
    ]);
    expect(collectVarPaths(deep)).toEqual([]);
    const circular: unknown[] = [1];
    circular.push(circular);
    expect(validateRuleExpression(circular).map((p) => p.message)).toContain("circular reference");
  });

  it("refuses extra operators when they are switched off", () => {
    expect(validateRuleExpression({ count: [1] }, { extraOperators: false })).toMatchObject([{ path: "count" }]);
  });
});
