/**
 * Offline evaluation of a rule over a document of dotted paths, with the engine's pure
 * compiler: exactly what `POST /rules/evaluate` with `data` computes, without a service.
 */
import { errors } from "../../../contract/errors.js";
import type { RuleEvaluationResult } from "../../../contract/service.js";
import { compileExpression, isTruthy, validateRuleExpression, type VarResolver } from "../../json-logic/index.js";

const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/**
 * A resolver over `{"Loan.amount": 5}` or nested `{"Loan": {"amount": 5}}`: a whole
 * dotted key first, else a walk through own properties (as the service's dry run does).
 */
export function documentResolver(data: Record<string, unknown>): VarResolver {
  return {
    get(path: string) {
      if (own(data, path)) return data[path];
      let current: unknown = data;
      for (const segment of path.split(".")) {
        if (current === null || typeof current !== "object" || !own(current, segment)) return undefined;
        current = (current as Record<string, unknown>)[segment];
      }
      return current;
    },
  };
}

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
  const run = compileExpression(expression).evaluate(documentResolver(data), { trace: true });
  const trace = {
    expression,
    inputs: run.inputs,
    result: run.result ?? null,
    steps: run.steps!,
    ...(run.error ? { error: run.error } : {}),
  };
  return { contextId: null, asOf: null, outcome: !run.error && isTruthy(run.result), evaluationTrace: trace };
}
