/** The evaluate stage: every rule over the context, with its trace. */
import type { EvaluationTrace, TraceStep } from "../../../contract/schemas/index.js";
import { isTruthy, type VarResolver } from "../../../portable/json-logic/index.js";
import type { PassEvaluation, PassRule } from "../types.js";
import { compareStrings } from "../../../portable/resolution/candidate.js";
import { toJsonValue } from "../../../portable/resolution/canonical-json.js";
import { sharedExpressionCache, type ExpressionCache } from "./expression-cache.js";

/** The root step of an evaluation that produced no tree (a fresh one each time). */
function errorStep(): TraceStep {
  return { op: "error", result: null, passed: false, children: [] };
}

/** Evaluates one rule against `resolver` (as {@link evaluateRules} does each). Never throws. */
export function evaluateRule(rule: PassRule, resolver: VarResolver, cache: ExpressionCache = sharedExpressionCache): PassEvaluation {
  const failed = (error: string, inputs: Record<string, unknown> = {}): PassEvaluation => ({
    ruleId: rule.id,
    ruleVersion: rule.version,
    outcome: false,
    trace: { expression: rule.expression, inputs, result: null, steps: errorStep(), error },
  });
  const compiled = cache.get(`rule:${rule.id}@${rule.version}`, rule.expression);
  if ("error" in compiled) return failed(compiled.error);
  try {
    const run = compiled.compiled.evaluate(resolver, { trace: true });
    // Inputs and result are stored as JSON: make them JSON now so a reloaded evaluation
    // equals this one (NaN and undefined would otherwise turn into null on the way).
    const inputs = toJsonValue(run.inputs) as Record<string, unknown>;
    const trace: EvaluationTrace = {
      expression: rule.expression,
      inputs,
      result: toJsonValue(run.result),
      steps: run.steps ?? errorStep(),
    };
    if (run.error !== undefined) trace.error = run.error;
    const outcome = run.error === undefined && isTruthy(run.result);
    return { ruleId: rule.id, ruleVersion: rule.version, outcome, trace };
  } catch (error) {
    // The evaluator does not throw, but a pass must survive anything a rule does.
    return failed(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Evaluates `rules` against `resolver`: `outcome` is the JSON Logic truthiness of the
 * result; an expression that does not compile or fails at run time gives outcome false
 * and `trace.error`. Compiled expressions are cached by rule id and version across
 * passes. Sorted by ruleId, then version. Never throws.
 */
export function evaluateRules(
  rules: readonly PassRule[],
  resolver: VarResolver,
  cache: ExpressionCache = sharedExpressionCache,
): PassEvaluation[] {
  return [...rules].sort(compareRules).map((rule) => evaluateRule(rule, resolver, cache));
}

/** The order of a pass's evaluations: by rule id, then version. */
export function compareRules(a: PassRule, b: PassRule): number {
  return compareStrings(a.id, b.id) || a.version - b.version;
}
