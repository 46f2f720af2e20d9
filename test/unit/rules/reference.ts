/** Test helpers: json-logic-js as the reference, and an outcome shape to compare with. */
import jsonLogic, { type RulesLogic } from "json-logic-js";
import { compileExpression, type CompileOptions, type EvaluationResult } from "../../../src/portable/json-logic/index.js";

/** What either implementation produced: a value, or "it failed". */
export type Outcome = { ok: true; value: unknown } | { ok: false };

/** json-logic-js's answer (the typings want RulesLogic; the reference accepts any value). */
export function referenceOutcome(rule: unknown, data: unknown): Outcome {
  try {
    return { ok: true, value: jsonLogic.apply(rule as RulesLogic, data) };
  } catch {
    return { ok: false };
  }
}

/** Ours, compiled with `options`; a compile error or an `error` both count as a failure. */
export function ourOutcome(
  rule: unknown,
  data: unknown,
  trace: boolean,
  options?: CompileOptions,
): { outcome: Outcome; evaluation?: EvaluationResult } {
  let compiled;
  try {
    compiled = compileExpression(rule, options);
  } catch {
    return { outcome: { ok: false } };
  }
  // Any value may be data for json-logic-js; evaluate's type names the common cases only.
  const evaluation = compiled.evaluate(data as object, { trace });
  const outcome: Outcome = evaluation.error === undefined ? { ok: true, value: evaluation.result } : { ok: false };
  return { outcome, evaluation };
}
