import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, jsonValueProblems } from "../../src/contract/json-limits.js";

const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

describe("jsonValueProblems", () => {
  it("finds nothing in an ordinary value", () => {
    expect(jsonValueProblems({ a: [1, "x", null, { b: true }], c: { d: 1.5 } })).toEqual([]);
  });

  it("allows exactly MAX_JSON_DEPTH levels and reports the first container past them once", () => {
    expect(jsonValueProblems(nested(MAX_JSON_DEPTH))).toEqual([]);
    const problems = jsonValueProblems(nested(MAX_JSON_DEPTH + 1));
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toMatch(/nests deeper than 64/);
    expect(problems[0].path.split(".")).toHaveLength(MAX_JSON_DEPTH);
  });

  it("walks a value nested 100,000 deep without exhausting the stack", () => {
    expect(jsonValueProblems(nested(100_000))).toHaveLength(1);
  });

  it("names the path of forbidden keys (own properties, as JSON.parse makes them) and of numbers JSON cannot carry", () => {
    const value = JSON.parse('{"x":[0,{"__proto__":{"y":1},"ok":1e309}],"constructor":2,"prototype":3}');
    expect(jsonValueProblems(value).map((p) => p.path)).toEqual(["constructor", "prototype", "x.1.__proto__", "x.1.ok"]);
  });

  it("does not look below a forbidden key, and stops at 20 problems", () => {
    expect(jsonValueProblems(JSON.parse('{"__proto__":{"z":1e309}}')).map((p) => p.path)).toEqual(["__proto__"]);
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, Infinity]));
    expect(jsonValueProblems(many)).toHaveLength(20);
  });
});
