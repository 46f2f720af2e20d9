/**
 * The sentences evidence is refused with, in one place: ingest says them, and the CLI's
 * `import --dry-run` (which checks lines without sending them) says the same words, so a
 * dry run and the real import report a line the same way.
 */
import { DdsError, errors, type ProblemDetail } from "../../contract/errors.js";
import { firstMoves } from "../../contract/lifecycle.js";

/** The problem of evidence that names no record: identity values missing, no recordId. */
export function missingIdentityProblem(fieldNames: string[]): ProblemDetail {
  return { path: "data", message: `missing identity: ${fieldNames.join(", ")} (or give recordId)` };
}

/** The 422 of a contribution with problems (the first in the detail, all in `errors`). */
export function invalidContribution(problems: ProblemDetail[]): DdsError {
  return errors.validation(`contribution is invalid: ${problems[0].path}: ${problems[0].message}`, problems);
}

/** The 409 of evidence for a model that is not active. */
export function modelNotActive(model: { name: string; status: string }): DdsError {
  return errors.conflict("model_not_active", `model ${model.name} is ${model.status}; evidence is accepted only by active models`);
}

/** Why a context that is not active cannot have `what` (a gerund) done to it, and what to do. */
export function contextNotActive(context: { id: string; status: string }, what: string): DdsError {
  return errors.conflict("context_not_active", `context ${context.id} is ${context.status}: ${firstMoves("context", context.status, "active", what)}`);
}
