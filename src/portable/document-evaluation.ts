/**
 * A rule evaluated against a data document of dotted paths instead of a context: the one
 * implementation behind the service's dry run with `data` (`POST /rules/evaluate`) and the
 * workbench's offline evaluation (`rules eval --data`, `rules test`, the studio's page).
 * Each caller checks the expression first, in its own words.
 */
import type { RuleEvaluationResult } from "../contract/service.js";
import { compileExpression, isTruthy, type VarResolver } from "./json-logic/index.js";

const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/**
 * A resolver over `{"Loan.amount": 5}` or nested `{"Loan": {"amount": 5}}`: a whole
 * dotted key first, else a walk through own properties.
 */
function documentResolver(data: Record<string, unknown>): VarResolver {
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

/**
 * Evaluates a compilable `expression` over `data` with a full trace. A runtime error is
 * not thrown: it is the trace's `error`, and the outcome is false.
 */
export function evaluateOnDocument(expression: unknown, data: Record<string, unknown>): RuleEvaluationResult {
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
