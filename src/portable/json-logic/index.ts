/**
 * ddsctl's JSON Logic engine: json-logic-js semantics (minus `method`), compiled once into
 * closures, with a trace of every evaluated sub-expression and the inputs it read.
 */
export { compileExpression } from "./compile.js";
export { JsonLogicCompileError } from "./compile-error.js";
export { validateRuleExpression } from "./validate.js";
export { collectVarPaths, readsOpaquely } from "./collect-var-paths.js";
export { isTruthy } from "./truthy.js";
export { TRACE_ELEMENT_CAP } from "./runtime.js";
export type {
  CompileOptions,
  CompiledExpression,
  EvaluateOptions,
  EvaluationResult,
  RuleProblem,
  TraceStep,
  VarResolver,
} from "./types.js";
