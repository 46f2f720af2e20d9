import type { ProblemDetail } from "../../contract/errors.js";
import type { TraceStep } from "../../contract/schemas/evaluation.js";

export type { TraceStep };

/**
 * Supplies top-level `var` values by their whole dotted path (`Loan.amount`,
 * `Applicant.income`), so the pipeline decides how a path maps onto a context. Returning
 * `undefined` means "not found" (the `var` default applies); `null` is a real value.
 */
export interface VarResolver {
  get(path: string): unknown;
}

/** One problem found in an expression: where (dotted path, `""` = root) and what. */
export type RuleProblem = ProblemDetail;

/** Options of {@link compileExpression} and {@link validateRuleExpression}. */
export interface CompileOptions {
  /**
   * Enable ddsctl's operators that json-logic-js lacks: `sum`, `avg`, `count`, and
   * `min`/`max` over a single array argument. Default true.
   */
  extraOperators?: boolean;
  /** Receives the argument of the `log` operator. Default: discarded (json-logic-js prints it). */
  log?: (value: unknown) => void;
}

/** Options of one evaluation. */
export interface EvaluateOptions {
  /** Build the `steps` tree. Inputs are collected either way. */
  trace?: boolean;
}

/** What one evaluation produced. */
export interface EvaluationResult {
  /** The expression's value, exactly as json-logic-js would give it; null after an error. */
  result: unknown;
  /** Every path read by a top-level `var` (or `missing`), with the value read (missing → null). */
  inputs: Record<string, unknown>;
  /** The evaluation tree; present only when tracing. Partial after an error. */
  steps?: TraceStep;
  /** The message of a runtime error; the evaluation never throws. */
  error?: string;
}

/** A rule compiled once into closures, to be evaluated over many cases. */
export interface CompiledExpression {
  /**
   * Evaluate over `data` (a plain object walked with json-logic-js's dotted-path rules) or
   * over a {@link VarResolver} (any non-array object with a `get` function; JSON data
   * cannot contain functions, so the two never collide).
   */
  evaluate(data?: VarResolver | object | null, options?: EvaluateOptions): EvaluationResult;
}
