import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { CompileOptions } from "../../../src/portable/json-logic/index.js";
import { dataArbitrary, expressionArbitrary } from "./expression-arbitrary.js";
import { ourOutcome, referenceOutcome } from "./reference.js";

/** Ours, traced and untraced, must equal json-logic-js (a throw there = an error here). */
function assertSameAsReference(rule: unknown, data: unknown, options?: CompileOptions): void {
  const expected = referenceOutcome(rule, data);
  expect(ourOutcome(rule, data, false, options).outcome).toEqual(expected);
  expect(ourOutcome(rule, data, true, options).outcome).toEqual(expected);
}

describe("differential against json-logic-js", () => {
  // Both implementations print `log` arguments; keep the test output clean.
  beforeAll(() => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
  });
  afterAll(() => {
    vi.restoreAllMocks();
  });

  it("matches on random expressions without extra operators", () => {
    fc.assert(
      fc.property(expressionArbitrary({ singleArgMinMax: true }), dataArbitrary, (rule, data) =>
        assertSameAsReference(rule, data, { extraOperators: false }),
      ),
      { numRuns: 2500 },
    );
  });

  it("matches with extra operators on, except single-argument min/max (the documented extension)", () => {
    fc.assert(
      fc.property(expressionArbitrary({ singleArgMinMax: false }), dataArbitrary, (rule, data) =>
        assertSameAsReference(rule, data),
      ),
      { numRuns: 2500 },
    );
  });

  it("matches on random data for a realistic rule", () => {
    const rule = {
      and: [
        { ">=": [{ var: "n" }, 0] },
        { or: [{ in: [{ var: "a" }, ["a", 1, true]] }, { missing: ["b", "s"] }] },
        { some: [{ var: "items" }, { ">": [{ var: "v" }, 0] }] },
        { if: [{ var: "obj.x" }, { cat: [{ var: "s" }, "!"] }, { reduce: [{ var: "arr" }, { "+": [{ var: "current" }, { var: "accumulator" }] }, 0] }] },
      ],
    };
    fc.assert(
      fc.property(dataArbitrary, (data) => assertSameAsReference(rule, data)),
      { numRuns: 500 },
    );
  });
});
