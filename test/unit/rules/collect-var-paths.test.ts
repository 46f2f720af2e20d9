import { describe, expect, it } from "vitest";
import { collectVarPaths, readsOpaquely } from "../../../src/portable/json-logic/index.js";

describe("collectVarPaths", () => {
  it("lists static top-level paths once, in order of appearance", () => {
    const rule = {
      and: [
        { ">=": [{ var: "Loan.amount" }, 1000] },
        { "<=": [{ "/": [{ var: "Loan.debt" }, { var: ["Loan.income", 1] }] }, 0.43] },
        { "==": [{ var: "Loan.amount" }, { var: 3 }] },
      ],
    };
    expect(collectVarPaths(rule)).toEqual(["Loan.amount", "Loan.debt", "Loan.income", "3"]);
  });

  it("skips element-scoped paths but keeps the array argument and reduce's initial", () => {
    const rule = {
      or: [
        { some: [{ var: "Applicant.score" }, { ">": [{ var: "" }, { var: "threshold" }] }] },
        { reduce: [{ var: "Loan.fees" }, { "+": [{ var: "current" }, { var: "accumulator" }] }, { var: "Loan.base" }] },
        { map: [{ merge: [{ var: "a" }, { var: "b" }] }, { var: "x" }] },
      ],
    };
    expect(collectVarPaths(rule)).toEqual(["Applicant.score", "Loan.fees", "Loan.base", "a", "b"]);
  });

  it("includes missing keys and vars computing a path, not computed or whole-data paths", () => {
    const rule = {
      if: [
        { missing: ["Loan.amount", "Loan.term"] },
        { missing_some: [1, ["Applicant.income", "Applicant.assets"]] },
        { var: { cat: ["Loan.", { var: "field" }] } },
        { var: "" },
      ],
    };
    expect(collectVarPaths(rule)).toEqual(["Loan.amount", "Loan.term", "Applicant.income", "Applicant.assets", "field"]);
  });

  it("ignores multi-key objects (data literals)", () => {
    expect(collectVarPaths({ "==": [{ var: "a", b: 1 }, 1] })).toEqual([]);
  });
});

describe("readsOpaquely", () => {
  it("is false when every read is a literal path, per-element reads included", () => {
    expect(readsOpaquely({ "*": [{ sum: [{ var: "employments.monthlyIncome" }] }, 12] })).toBe(false);
    expect(readsOpaquely({ map: [{ var: "items" }, { var: "" }] })).toBe(false);
    expect(readsOpaquely({ missing: ["a", "b"] })).toBe(false);
  });

  it("is true for a whole-data read or a path computed at run time", () => {
    expect(readsOpaquely({ var: "" })).toBe(true);
    expect(readsOpaquely({ "+": [1, { var: { cat: ["a", "b"] } }] })).toBe(true);
    expect(readsOpaquely({ missing: [{ var: "k" }] })).toBe(true);
    expect(readsOpaquely({ missing_some: [1, [""]] })).toBe(true);
    expect(readsOpaquely({ reduce: [{ var: "xs" }, { var: "accumulator" }, { var: { if: [true, "a", "b"] } }] })).toBe(true);
  });
});
