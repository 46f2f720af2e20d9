/**
 * Offline evaluation of a rule over a document of dotted paths: exactly what `POST
 * /rules/evaluate` with `data` computes (both call {@link evaluateOnDocument}), without a
 * service.
 */
import { errors } from "../../../contract/errors.js";
import type { RuleEvaluationResult } from "../../../contract/service.js";
import { evaluateOnDocument } from "../../document-evaluation.js";
import { validateRuleExpression } from "../../json-logic/index.js";

/** Refuses (422 compile_failed, every problem listed) an expression a rule could not hold. */
export function assertRuleExpression(expression: unknown, what = "the rule expression"): void {
  const problems = validateRuleExpression(expression);
  if (problems.length > 0) {
    const detail = problems.map((p) => `${p.path || "(root)"}: ${p.message}`).join("; ");
    throw errors.compile(`${what} does not compile: ${detail}`, problems);
  }
}

/** Evaluates `expression` over `data` with a full trace; a runtime error gives outcome false. */
export function evaluateLocally(expression: unknown, data: Record<string, unknown>): RuleEvaluationResult {
  assertRuleExpression(expression);
  return evaluateOnDocument(expression, data);
}
