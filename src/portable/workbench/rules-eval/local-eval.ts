/**
 * Offline evaluation of a rule over a document of dotted paths: exactly what `POST
 * /rules/evaluate` with `data` computes (both call {@link evaluateOnDocument}), without a
 * service.
 */
import { errors } from "../../../contract/errors.js";
import type { RuleEvaluationResult } from "../../../contract/service.js";
import { evaluateOnDocument } from "../../document-evaluation.js";
import { validateRuleExpression } from "../../json-logic/index.js";
import { checkRulePaths, type RulePathModel } from "../../rule-paths.js";

/** Refuses (422 compile_failed, every problem listed) an expression a rule could not hold. */
export function assertRuleExpression(expression: unknown, what = "the rule expression"): void {
  const problems = validateRuleExpression(expression);
  if (problems.length > 0) {
    const detail = problems.map((p) => `${p.path || "(root)"}: ${p.message}`).join("; ");
    throw errors.compile(`${what} does not compile: ${detail}`, problems);
  }
}

/**
 * Refuses (422 compile_failed) an expression whose paths name nothing `models` have (a
 * field no model has, a model that does not exist), in the words and paths
 * (`expression.<=.0.var`) the service refuses a rule with.
 */
export function assertRulePaths(expression: unknown, models: readonly RulePathModel[]): void {
  const problems = checkRulePaths(expression, models).map((p) => ({ path: p.path ? `expression.${p.path}` : "expression", message: p.message }));
  if (problems.length > 0) throw errors.compile(`expression does not compile: ${problems[0].message}`, problems);
}

/** Evaluates `expression` over `data` with a full trace; a runtime error gives outcome false. */
export function evaluateLocally(expression: unknown, data: Record<string, unknown>): RuleEvaluationResult {
  assertRuleExpression(expression);
  return evaluateOnDocument(expression, data);
}
