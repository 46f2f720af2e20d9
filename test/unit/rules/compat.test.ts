import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ourOutcome, referenceOutcome } from "./reference.js";

interface CompatCase {
  description: string;
  rule: unknown;
  data?: unknown;
  result: unknown;
}

// The json-logic/compat-tables suite (Apache-2.0), copied beside the tests; strings are headings.
const suite = JSON.parse(
  readFileSync(new URL("./fixtures/jsonlogic-compatible.json", import.meta.url), "utf8"),
) as Array<string | CompatCase>;
const cases = suite
  .filter((c): c is CompatCase => typeof c !== "string")
  .map((c, i) => ({ ...c, name: `#${i + 1} ${c.description}` }));

describe("json-logic compat-tables suite", () => {
  it("has all 278 cases", () => {
    expect(cases).toHaveLength(278);
  });

  describe.each([false, true])("trace=%s", (trace) => {
    it.each(cases)("$name", ({ rule, data, result }) => {
      const { outcome, evaluation } = ourOutcome(rule, data, trace);
      expect(evaluation?.error).toBeUndefined();
      expect(outcome).toEqual({ ok: true, value: result });
      expect(outcome).toEqual(referenceOutcome(rule, data));
      if (trace) expect(evaluation?.steps?.result).toEqual(result);
    });
  });
});
