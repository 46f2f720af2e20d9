import type { ProblemDetail } from "../../../contract/errors.js";
import type { Model } from "../../../contract/schemas/index.js";
import { checkValue } from "../../../engine/models/value-check.js";

/**
 * The checks ingest makes on a contribution's data that need no database write: unknown
 * and computed fields, each value's type and validation (enum values, ranges, patterns),
 * confidences in 0..1, and identity values when no recordId binds the line. A dry run
 * makes them so it passes exactly the lines the real import would accept.
 */
export function contributionDataProblems(model: Model, item: Record<string, unknown>): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  const data = item.data !== null && typeof item.data === "object" && !Array.isArray(item.data) ? (item.data as Record<string, unknown>) : {};
  const fields = new Map(model.fields.map((f) => [f.name, f]));
  for (const [name, value] of Object.entries(data)) {
    const field = fields.get(name);
    if (!field) problems.push({ path: `data.${name}`, message: `unknown field "${name}" (model ${model.name} has ${model.fields.map((f) => f.name).join(", ") || "no fields"})` });
    else if (field.computed) problems.push({ path: `data.${name}`, message: `${name} is computed and cannot be contributed` });
    else {
      const problem = checkValue(field, value);
      if (problem) problems.push({ path: `data.${name}`, message: problem.message });
    }
  }
  const confidences = (item.fieldConfidences ?? {}) as Record<string, unknown>;
  for (const [name, c] of Object.entries(confidences)) {
    if (typeof c !== "number" || !Number.isFinite(c) || c < 0 || c > 1) {
      problems.push({ path: `fieldConfidences.${name}`, message: `confidence must be a number from 0 to 1, got ${JSON.stringify(c)}` });
    } else if (!(name in data)) problems.push({ path: `fieldConfidences.${name}`, message: `"${name}" is not a field in data` });
  }
  if (item.recordId === undefined) {
    const missing = model.identity.filter((name) => data[name] === undefined || data[name] === null);
    if (missing.length > 0) problems.push({ path: "data", message: `identity field(s) missing: ${missing.join(", ")} (or bind the line with recordId)` });
  }
  return problems;
}
