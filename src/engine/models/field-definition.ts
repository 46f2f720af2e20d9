import type { ProblemDetail } from "../../contract/errors.js";
import type { FieldInput } from "../../contract/schemas/index.js";
import { validateRuleExpression } from "../../portable/json-logic/index.js";

const ORDERED = new Set(["number", "integer", "date", "datetime"]);
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** True when `value` is a valid `date` (YYYY-MM-DD, a real calendar day). */
export function isDate(value: unknown): value is string {
  if (typeof value !== "string" || !DATE_RE.test(value)) return false;
  const d = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** True when `value` is an ISO 8601 datetime with a time zone. */
export function isDateTime(value: unknown): value is string {
  return (
    typeof value === "string" &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value))
  );
}

/**
 * Checks one field definition for internal consistency: validation rules that fit the
 * type, an enum with values, a compilable pattern, a resolution policy with what it needs,
 * a well-formed computed expression. Returns every problem, prefixed with `path`.
 */
export function checkFieldDefinition(field: FieldInput, path: string): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  const add = (p: string, message: string) => problems.push({ path: `${path}.${p}`, message });
  const v = field.validation ?? {};
  const t = field.type;
  if ((v.min !== undefined || v.max !== undefined) && !ORDERED.has(t)) {
    add("validation", `min/max apply to number, integer, date and datetime fields, not ${t}`);
  }
  if (ORDERED.has(t)) {
    for (const k of ["min", "max"] as const) {
      const bound = v[k];
      if (bound === undefined) continue;
      const ok =
        t === "number" ? typeof bound === "number" :
        t === "integer" ? Number.isInteger(bound) :
        t === "date" ? isDate(bound) : isDateTime(bound);
      if (!ok) add(`validation.${k}`, `must be ${t === "number" ? "a number" : t === "integer" ? "an integer" : `a ${t} string`} for a ${t} field`);
    }
    if (v.min !== undefined && v.max !== undefined && typeof v.min === typeof v.max && v.min > v.max) {
      add("validation", "min must not be greater than max");
    }
  }
  if ((v.minLength !== undefined || v.maxLength !== undefined || v.pattern !== undefined) && t !== "string") {
    add("validation", `minLength, maxLength and pattern apply to string fields, not ${t}`);
  }
  if (v.minLength !== undefined && v.maxLength !== undefined && v.minLength > v.maxLength) {
    add("validation", "minLength must not be greater than maxLength");
  }
  if (v.pattern !== undefined) {
    try {
      new RegExp(v.pattern, "u");
    } catch (err) {
      add("validation.pattern", `is not a valid regular expression: ${(err as Error).message}`);
    }
  }
  if (t === "enum") {
    if (!v.values || v.values.length === 0) add("validation.values", "an enum field needs a non-empty list of values");
    else if (new Set(v.values.map((x) => JSON.stringify(x))).size !== v.values.length) add("validation.values", "values must be unique");
  } else if (v.values !== undefined) {
    add("validation.values", `values apply to enum fields, not ${t}`);
  }
  const r = field.resolution;
  if (r) {
    if (r.policy === "source_priority" && (!r.sourcePriority || r.sourcePriority.length === 0)) {
      add("resolution.sourcePriority", "the source_priority policy needs an ordered, non-empty sourcePriority list");
    }
    if (r.policy !== "source_priority" && r.sourcePriority !== undefined) {
      add("resolution.sourcePriority", `only the source_priority policy uses sourcePriority (policy is ${r.policy})`);
    }
    if ((r.policy === "min" || r.policy === "max") && !ORDERED.has(t)) {
      add("resolution.policy", `the ${r.policy} policy needs an ordered type (number, integer, date, datetime), not ${t}`);
    }
  }
  if (field.computed) {
    if (r) add("resolution", "computed fields receive no contributions, so they take no resolution policy");
    for (const p of validateRuleExpression(field.computed.expression)) {
      add(`computed.expression${p.path ? `.${p.path}` : ""}`, p.message);
    }
  }
  return problems;
}
