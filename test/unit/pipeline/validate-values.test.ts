import { describe, expect, it } from "vitest";
import type { CompiledModel } from "../../../src/engine/models/model-types.js";
import { validateValues } from "../../../src/engine/pipeline/stages/index.js";
import { compiledField, uuid } from "./fixtures.js";

function modelOf(...fields: Parameters<typeof compiledField>[0][]): CompiledModel {
  return {
    modelId: uuid(1, 9),
    name: "Thing",
    version: 1,
    identity: [],
    relationships: [],
    computedOrder: [],
    fields: fields.map((f, i) => compiledField({ fieldId: uuid(9, i + 1), ...f })),
  };
}

/** Validates one field `f` holding `value` and returns the codes and messages. */
function check(f: Parameters<typeof compiledField>[0], value: unknown) {
  const values = value === undefined ? {} : { [uuid(9, 1)]: value };
  return validateValues(modelOf(f), values).map((i) => `${i.code}: ${i.message}`);
}

describe("validateValues", () => {
  it("reports missing or null required fields", () => {
    expect(check({ name: "amount", required: true }, undefined)).toEqual(["required: amount is required"]);
    expect(check({ name: "amount", required: true }, null)).toEqual(["required: amount is required"]);
    expect(check({ name: "amount" }, null)).toEqual([]);
    expect(check({ name: "amount", required: true }, 0)).toEqual([]);
  });

  it("reports a value of the wrong type, and only that", () => {
    expect(check({ name: "amount", type: "number", validation: { min: 5 } }, "12")).toEqual(["type: amount must be a number"]);
    expect(check({ name: "n", type: "integer" }, 1.5)).toEqual(["type: n must be an integer"]);
    expect(check({ name: "n", type: "integer" }, 2)).toEqual([]);
    expect(check({ name: "ok", type: "boolean" }, "true")).toEqual(["type: ok must be a boolean"]);
    expect(check({ name: "d", type: "date" }, "2026-02-30")).toEqual(["type: d must be a date (YYYY-MM-DD)"]);
    expect(check({ name: "t", type: "datetime" }, "2026-02-03T10:00:00")).toEqual(["type: t must be an ISO 8601 datetime with a time zone"]);
    expect(check({ name: "s", type: "string" }, 5)).toEqual(["type: s must be a string"]);
    expect(check({ name: "j", type: "json" }, { any: [1] })).toEqual([]);
    expect(check({ name: "e", type: "enum", validation: { values: ["a"] } }, { a: 1 })).toEqual(["type: e must be one of its values"]);
  });

  it("checks min and max on numbers, dates and datetimes", () => {
    expect(check({ name: "amount", validation: { min: 1000 } }, 999)).toEqual(["min: amount must be at least 1000"]);
    expect(check({ name: "amount", validation: { min: 1000 } }, 1000)).toEqual([]);
    expect(check({ name: "amount", validation: { max: 5 } }, 6)).toEqual(["max: amount must be at most 5"]);
    expect(check({ name: "d", type: "date", validation: { min: "2026-01-01" } }, "2025-12-31")).toEqual([
      "min: d must be at least 2026-01-01",
    ]);
    expect(check({ name: "t", type: "datetime", validation: { max: "2026-01-01T00:00:00Z" } }, "2026-01-01T03:00:00+05:00")).toEqual([]);
    expect(check({ name: "t", type: "datetime", validation: { max: "2026-01-01T00:00:00Z" } }, "2026-01-01T00:00:01Z")).toEqual([
      "max: t must be at most 2026-01-01T00:00:00Z",
    ]);
  });

  it("checks string lengths in code points, and unicode patterns", () => {
    expect(check({ name: "s", type: "string", validation: { minLength: 3 } }, "ab")).toEqual(["minLength: s must be at least 3 characters long"]);
    expect(check({ name: "s", type: "string", validation: { maxLength: 2 } }, "abc")).toEqual(["maxLength: s must be at most 2 characters long"]);
    expect(check({ name: "s", type: "string", validation: { maxLength: 2 } }, "😀😀")).toEqual([]);
    expect(check({ name: "s", type: "string", validation: { pattern: "^\\p{Lu}" } }, "élan")).toEqual(["pattern: s must match the pattern ^\\p{Lu}"]);
    expect(check({ name: "s", type: "string", validation: { pattern: "^\\p{Lu}" } }, "Élan")).toEqual([]);
  });

  it("checks enum values", () => {
    expect(check({ name: "purpose", type: "enum", validation: { values: ["purchase", "refinance"] } }, "lease")).toEqual([
      'values: purpose must be one of "purchase", "refinance"',
    ]);
    expect(check({ name: "purpose", type: "enum", validation: { values: ["purchase", 2] } }, 2)).toEqual([]);
  });

  it("orders issues by field position, then code", () => {
    const model = modelOf(
      { name: "first", type: "string", validation: { maxLength: 1, pattern: "^x", minLength: 0 } },
      { name: "second", required: true },
    );
    const issues = validateValues(model, { [uuid(9, 1)]: "abc" });
    expect(issues.map((i) => `${i.field}:${i.code}`)).toEqual(["first:maxLength", "first:pattern", "second:required"]);
  });
});
