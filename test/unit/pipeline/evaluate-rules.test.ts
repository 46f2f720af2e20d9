import { describe, expect, it } from "vitest";
import type { PassRule } from "../../../src/engine/pipeline/types.js";
import { evaluateRules, ExpressionCache } from "../../../src/engine/pipeline/stages/index.js";
import type { VarResolver } from "../../../src/portable/json-logic/index.js";
import { uuid } from "./fixtures.js";

const data: Record<string, unknown> = { "Loan.amount": 300000, "Applicant.income": [1, 2], "Loan.flag": [] };
const resolver: VarResolver = { get: (path) => data[path] };
const rule = (n: number, expression: unknown, version = 1): PassRule => ({ id: uuid(70, n), name: `r${n}`, version, expression });

describe("evaluateRules", () => {
  it("gives the truthiness of the result with a full trace", () => {
    const [ev] = evaluateRules([rule(1, { ">": [{ var: "Loan.amount" }, 1000] })], resolver, new ExpressionCache());
    expect(ev).toMatchObject({ ruleId: uuid(70, 1), ruleVersion: 1, outcome: true });
    expect(ev.trace).toMatchObject({ expression: { ">": [{ var: "Loan.amount" }, 1000] }, inputs: { "Loan.amount": 300000 }, result: true });
    expect(ev.trace.steps.op).toBe(">");
    expect(ev.trace.steps.children.length).toBe(2);
    expect(ev.trace.error).toBeUndefined();
  });

  it("uses JSON Logic truthiness (an empty array is false)", () => {
    const [ev] = evaluateRules([rule(1, { var: "Loan.flag" })], resolver, new ExpressionCache());
    expect(ev.outcome).toBe(false);
    expect(ev.trace.result).toEqual([]);
  });

  it("gives outcome false and trace.error when evaluation fails", () => {
    const [ev] = evaluateRules([rule(1, { "!": { var: { cat: ["Loan.", "__proto__"] } } })], resolver, new ExpressionCache());
    expect(ev.outcome).toBe(false);
    expect(ev.trace.error).toMatch(/reserved segment "__proto__"/);
    expect(ev.trace.result).toBeNull();
    expect(ev.trace.steps.op).toBe("!");
  });

  it("gives outcome false and trace.error for an expression that does not compile, and never throws", () => {
    const throwing: VarResolver = {
      get: () => {
        throw new Error("boom");
      },
    };
    const out = evaluateRules([rule(2, { nope: [1] }), rule(1, { var: "x" })], throwing, new ExpressionCache());
    expect(out.map((e) => [e.ruleId, e.outcome])).toEqual([[uuid(70, 1), false], [uuid(70, 2), false]]);
    expect(out[0].trace.error).toBe("boom");
    expect(out[1].trace.error).toMatch(/nope/);
    expect(out[1].trace.steps).toEqual({ op: "error", result: null, passed: false, children: [] });
  });

  it("sorts by rule id and makes results JSON-safe", () => {
    const out = evaluateRules([rule(3, { "/": [1, 0] }), rule(1, true), rule(2, { "*": ["x", 2] })], resolver, new ExpressionCache());
    expect(out.map((e) => e.ruleId)).toEqual([1, 2, 3].map((n) => uuid(70, n)));
    expect(out[1]).toMatchObject({ outcome: false, trace: { result: null } });
    expect(out[2]).toMatchObject({ outcome: true, trace: { result: null } });
  });

  it("caches compiled rules by id and version, recompiling when the expression differs", () => {
    const cache = new ExpressionCache(2);
    evaluateRules([rule(1, true), rule(2, false)], resolver, cache);
    expect(cache.size).toBe(2);
    const [changed] = evaluateRules([rule(1, false)], resolver, cache);
    expect(changed.outcome).toBe(false);
    evaluateRules([rule(3, true)], resolver, cache);
    expect(cache.size).toBe(2);
    expect(evaluateRules([rule(2, { "!": true })], resolver, cache)[0].outcome).toBe(false);
  });
});
