/**
 * The validate stage. Contributions are checked at ingest, but a field definition may
 * have changed since (a new `required`, a tighter `max`), and computed values are never
 * checked anywhere else, so resolved data is checked again against the current model.
 */
import type { FieldType, RecordIssue } from "../../../contract/schemas/index.js";
import { isDate, isDateTime } from "../../models/field-definition.js";
import type { CompiledField, CompiledModel } from "../../models/model-types.js";
import { hasOwn } from "./record-order.js";
import { pushAll } from "../../../portable/arrays.js";

type IssueCode = RecordIssue["code"];

/** Order of codes within one field: the order the schema declares them in. */
const CODE_ORDER: readonly IssueCode[] = ["required", "type", "min", "max", "minLength", "maxLength", "pattern", "values"];

const TYPE_NAMES: Record<FieldType, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  date: "a date (YYYY-MM-DD)",
  datetime: "an ISO 8601 datetime with a time zone",
  enum: "one of its values",
  json: "JSON",
};

// Patterns are few and reused on every pass: compile each once.
const patternCache = new Map<string, RegExp | null>();

function compiledPattern(pattern: string): RegExp | null {
  let re = patternCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, "u");
    } catch {
      re = null; // the definition check refuses such patterns; never fail a pass on one
    }
    if (patternCache.size > 1000) patternCache.clear();
    patternCache.set(pattern, re);
  }
  return re;
}

function hasType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "date":
      return isDate(value);
    case "datetime":
      return isDateTime(value);
    case "enum":
      return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
    default:
      return true;
  }
}

/** A comparable key for `min`/`max`, or undefined when the bound does not fit the type. */
function boundKey(value: unknown, type: FieldType): number | undefined {
  if (type === "number" || type === "integer") return typeof value === "number" ? value : undefined;
  if (type === "date" && isDate(value)) return Date.parse(value);
  if (type === "datetime" && isDateTime(value)) return Date.parse(value);
  return undefined;
}

function fieldIssues(field: CompiledField, value: unknown): RecordIssue[] {
  const name = field.name;
  if (value === undefined || value === null) {
    return field.required ? [{ field: name, code: "required", message: `${name} is required` }] : [];
  }
  if (!hasType(value, field.type)) {
    return [{ field: name, code: "type", message: `${name} must be ${TYPE_NAMES[field.type]}` }];
  }
  const issues: RecordIssue[] = [];
  const add = (code: IssueCode, message: string) => issues.push({ field: name, code, message: `${name} ${message}` });
  const v = field.validation ?? {};
  const key = boundKey(value, field.type);
  const min = boundKey(v.min, field.type);
  const max = boundKey(v.max, field.type);
  if (key !== undefined && min !== undefined && key < min) add("min", `must be at least ${String(v.min)}`);
  if (key !== undefined && max !== undefined && key > max) add("max", `must be at most ${String(v.max)}`);
  if (typeof value === "string" && field.type === "string") {
    // Lengths count Unicode code points, matching the `u` flag of `pattern`.
    const length = [...value].length;
    if (v.minLength !== undefined && length < v.minLength) add("minLength", `must be at least ${v.minLength} characters long`);
    if (v.maxLength !== undefined && length > v.maxLength) add("maxLength", `must be at most ${v.maxLength} characters long`);
    const re = v.pattern === undefined ? null : compiledPattern(v.pattern);
    if (re && !re.test(value)) add("pattern", `must match the pattern ${v.pattern}`);
  }
  if (field.type === "enum" && v.values && !v.values.some((allowed) => allowed === value)) {
    add("values", `must be one of ${v.values.map((x) => JSON.stringify(x)).join(", ")}`);
  }
  return issues;
}

/**
 * Checks resolved (and computed) values against the model's current definition: missing
 * or null `required` fields, then the type, `min`/`max`, `minLength`/`maxLength`,
 * `pattern` (unicode, unanchored) and enum `values`. A value of the wrong type gets only
 * the `type` issue. Issues are ordered by field position, then by code in the order the
 * RecordIssue schema declares them.
 */
export function validateValues(model: CompiledModel, values: Record<string, unknown>): RecordIssue[] {
  const issues: RecordIssue[] = [];
  for (const field of model.fields) {
    const value = hasOwn(values, field.fieldId) ? values[field.fieldId] : undefined;
    const found = fieldIssues(field, value);
    found.sort((a, b) => CODE_ORDER.indexOf(a.code) - CODE_ORDER.indexOf(b.code));
    pushAll(issues, found);
  }
  return issues;
}
