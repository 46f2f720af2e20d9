import type { z } from "zod";
import { errors, type ProblemDetail } from "./errors.js";
import { assertJsonValue } from "./json-limits.js";

/** Turns zod issues into the `errors` list of a problem body. */
export function zodProblems(error: z.ZodError): ProblemDetail[] {
  return error.issues.map((issue) => ({
    path: issue.path.length === 0 ? "" : issue.path.map(String).join("."),
    message:
      issue.code === "unrecognized_keys"
        ? `unknown propert${issue.keys.length > 1 ? "ies" : "y"} ${issue.keys.map((k) => `"${k}"`).join(", ")}`
        : issue.message,
  }));
}

/**
 * Validates a request body against its schema, throwing a 400 `invalid_request` that
 * lists every problem (shape errors are 400; data that breaks a model is 422). The JSON
 * limits of json-limits.ts are checked first (422 `validation_failed`).
 */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, what = "request body"): z.infer<T> {
  // Before zod walks it (recursively, dropping `__proto__` keys on the way): 422 for what
  // no schema may see (too deep, forbidden keys, numbers JSON cannot carry).
  assertJsonValue(body, what);
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw errors.invalid(`${what} must be a JSON object`);
  }
  const result = schema.safeParse(body);
  if (!result.success) {
    const problems = zodProblems(result.error);
    const first = problems[0];
    throw errors.invalid(
      `${what} is invalid: ${first.path ? `${first.path}: ` : ""}${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ""}`,
      problems,
    );
  }
  return result.data;
}
