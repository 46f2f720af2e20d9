import type { FieldType, FieldValidation } from "../../contract/schemas/index.js";
import { isDate, isDateTime } from "./field-definition.js";

/** What a value check needs to know about a field. */
export interface CheckedField {
  name: string;
  type: FieldType;
  validation: FieldValidation | null;
}

/** A failed check: which rule (`type`, `min`, …) and a sentence for people. */
export interface ValueProblem {
  code: "type" | "min" | "max" | "minLength" | "maxLength" | "pattern" | "values";
  message: string;
}

const TYPE_TEST: Record<FieldType, (v: unknown) => boolean> = {
  string: (v) => typeof v === "string",
  number: (v) => typeof v === "number" && Number.isFinite(v),
  integer: (v) => typeof v === "number" && Number.isInteger(v),
  boolean: (v) => typeof v === "boolean",
  date: isDate,
  datetime: isDateTime,
  enum: (v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean",
  json: () => true,
};

const ARTICLE: Record<FieldType, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  date: "a date (YYYY-MM-DD)",
  datetime: "an ISO 8601 datetime with a time zone",
  enum: "one of the enum values",
  json: "JSON",
};

const patterns = new Map<string, RegExp>();

function ordered(type: FieldType, v: unknown): number {
  return type === "date" || type === "datetime" ? Date.parse(String(type === "date" ? `${v}T00:00:00Z` : v)) : Number(v);
}

/**
 * Checks a non-null value against its field's type and validation rules. Returns the
 * first problem, or undefined when the value is acceptable. `null` is always acceptable
 * here: it means "no value", which only the `required` check (on resolved data) judges.
 */
export function checkValue(field: CheckedField, value: unknown): ValueProblem | undefined {
  if (value === null) return undefined;
  const { name, type } = field;
  if (!TYPE_TEST[type](value)) return { code: "type", message: `${name} must be ${ARTICLE[type]}, got ${JSON.stringify(value)}` };
  const v = field.validation;
  if (!v) return undefined;
  if (type === "enum" && v.values && !v.values.some((x) => x === value)) {
    return { code: "values", message: `${name} must be one of ${v.values.map((x) => JSON.stringify(x)).join(", ")}` };
  }
  if (v.min !== undefined && ordered(type, value) < ordered(type, v.min)) return { code: "min", message: `${name} must be at least ${v.min}` };
  if (v.max !== undefined && ordered(type, value) > ordered(type, v.max)) return { code: "max", message: `${name} must be at most ${v.max}` };
  if (typeof value === "string") {
    const length = [...value].length;
    if (v.minLength !== undefined && length < v.minLength) return { code: "minLength", message: `${name} must be at least ${v.minLength} characters` };
    if (v.maxLength !== undefined && length > v.maxLength) return { code: "maxLength", message: `${name} must be at most ${v.maxLength} characters` };
    if (v.pattern !== undefined) {
      let re = patterns.get(v.pattern);
      if (!re) {
        re = new RegExp(v.pattern, "u");
        patterns.set(v.pattern, re);
      }
      if (!re.test(value)) return { code: "pattern", message: `${name} must match ${v.pattern}` };
    }
  }
  return undefined;
}
