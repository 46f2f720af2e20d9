import { describe, expect, it, vi } from "vitest";
import { compileExpression, isTruthy, type VarResolver } from "../../../src/portable/json-logic/index.js";
import { ourOutcome, referenceOutcome } from "./reference.js";

describe("runtime errors", () => {
  it("come back as `error` with a null result instead of throwing", () => {
    const rule = { and: [true, { in: ["a", { var: "obj" }] }] };
    const data = { obj: { indexOf: 1 } };
    expect(referenceOutcome(rule, data)).toEqual({ ok: false });
    const compiled = compileExpression(rule);
    const plain = compiled.evaluate(data);
    expect(plain.result).toBeNull();
    expect(plain.error).toMatch(/indexOf/);
    const traced = compiled.evaluate(data, { trace: true });
    expect(traced.error).toBe(plain.error);
    // The partial trace shows how far evaluation got.
    expect(traced.steps?.op).toBe("and");
    expect(traced.steps?.children.map((c) => c.op)).toEqual(["value", "in"]);
    expect(traced.steps?.children[1].children.map((c) => c.op)).toEqual(["value", "var"]);
  });

  it("refuses a computed var path with a reserved segment at run time", () => {
    const { result, error } = compileExpression({ var: { cat: ["a.", { var: "k" }] } }).evaluate({ k: "__proto__" });
    expect(result).toBeNull();
    expect(error).toBe('var path "a.__proto__" uses the reserved segment "__proto__"');
  });

  it("refuses array paths that stringify to a reserved segment", () => {
    const { result, error } = compileExpression({ var: [["__proto__"]] }).evaluate({});
    expect(result).toBeNull();
    expect(error).toMatch(/reserved segment "__proto__"/);
    expect(compileExpression({ missing: [[["constructor"]]] }).evaluate({}).error).toMatch(/reserved/);
  });

  it("mirror json-logic-js's data-dependent failures", () => {
    for (const [rule, data] of [
      [{ missing_some: [1, { var: "nope" }] }, {}],
      [{ missing: { var: "keys" } }, { keys: [{ foo: 1 }] }],
    ] as const) {
      expect(referenceOutcome(rule, data)).toEqual({ ok: false });
      expect(ourOutcome(rule, data, true).outcome).toEqual({ ok: false });
    }
  });

  it("evaluates logic found in `missing` keys, as json-logic-js does", () => {
    for (const data of [{ keys: [["a", 5]] }, { keys: [{ var: "name" }], name: "a" }, { keys: [{ var: "name" }], name: "a", a: 1 }]) {
      const rule = { missing: { var: "keys" } };
      expect(ourOutcome(rule, data, false).outcome).toEqual(referenceOutcome(rule, data));
    }
  });

  it("gives each evaluation fresh arrays for array literals, as json-logic-js does", () => {
    const compiled = compileExpression(["a", ["b"]]);
    const first = compiled.evaluate({}).result as unknown[];
    const second = compiled.evaluate({}).result as unknown[];
    expect(first).toEqual(["a", ["b"]]);
    expect(first).not.toBe(second);
    expect(first[1]).not.toBe(second[1]);
    expect(Object.isFrozen(first)).toBe(false);
  });

  it("sends `log` output to the configured logger", () => {
    const log = vi.fn();
    expect(compileExpression({ log: { var: "x" } }, { log }).evaluate({ x: 7 }).result).toBe(7);
    expect(log).toHaveBeenCalledWith(7);
  });
});

describe("VarResolver", () => {
  const values: Record<string, unknown> = {
    "Loan.amount": 5000,
    "Applicant.score": [580, 720],
    "context.type": null,
  };
  const resolver: VarResolver = { get: (path) => values[path] };

  it("receives whole dotted paths and its values are recorded as inputs", () => {
    const rule = {
      and: [
        { ">=": [{ var: "Loan.amount" }, 1000] },
        { some: [{ var: "Applicant.score" }, { ">": [{ var: "" }, 600] }] },
        { "==": [{ var: ["Loan.term", 30] }, 30] },
      ],
    };
    const { result, inputs } = compileExpression(rule).evaluate(resolver, { trace: true });
    expect(result).toBe(true);
    expect(inputs).toEqual({ "Loan.amount": 5000, "Applicant.score": [580, 720], "Loan.term": null });
  });

  it("serves missing, null values and whole-data reads", () => {
    const get = vi.fn(resolver.get);
    const compiled = compileExpression({ missing: ["Loan.amount", "context.type", "Loan.rate"] });
    expect(compiled.evaluate({ get }).result).toEqual(["context.type", "Loan.rate"]);
    expect(get.mock.calls.map((c) => c[0])).toEqual(["Loan.amount", "context.type", "Loan.rate"]);
    expect(compileExpression({ var: ["context.type", "dflt"] }).evaluate(resolver).result).toBeNull();
    expect(compileExpression({ var: "" }).evaluate({ get: (p: string) => `all:${p}` }).result).toBe("all:");
  });
});

describe("isTruthy", () => {
  it("follows JSON Logic: empty arrays are falsy", () => {
    expect([[], 0, "", null, undefined, false, NaN].map(isTruthy)).toEqual(Array(7).fill(false));
    expect([[0], "0", 1, {}, true, -1].map(isTruthy)).toEqual(Array(6).fill(true));
  });
});
