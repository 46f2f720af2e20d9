/**
 * The shapes shared by the compiler and the operator implementations: a compiled node is
 * a closure `(data, ctx) => value`, and all per-evaluation state lives in `ctx` so the
 * closures themselves stay immutable and reusable across evaluations.
 */
import { isTruthy } from "./truthy.js";
import type { RuleProblem, TraceStep, VarResolver } from "./types.js";

/** Per-evaluation state threaded through every compiled node. */
export interface EvalContext {
  /** The top-level resolver, or null when the top-level data is a plain object. */
  readonly resolver: VarResolver | null;
  /** True while evaluating against the top-level data (false inside map/filter/...). */
  top: boolean;
  /** Paths read from the top-level data, with the values read. */
  readonly inputs: Record<string, unknown>;
  /** Where the next trace node goes (children of the open step), or null when not tracing. */
  trace: TraceStep[] | null;
  /** Compiles logic found in data at run time (json-logic-js's `missing` evaluates it). */
  readonly dynamic: (expression: unknown) => Evaluator;
}

/** A compiled sub-expression. */
export type Evaluator = (data: unknown, ctx: EvalContext) => unknown;

/** A compiled argument with what the compiler knows about it statically. */
export interface CompiledArg {
  fn: Evaluator;
  /** True when the argument contains no operation (its value is known at compile time). */
  isConst: boolean;
  /** The compile-time value when `isConst` (an internal template for arrays). */
  value: unknown;
  /** Dotted location of the argument in the expression, for problems. */
  path: string;
}

/** Options after defaults are applied. */
export interface ResolvedOptions {
  extraOperators: boolean;
  log: (value: unknown) => void;
}

/** What an operator's compiler receives. */
export interface OpInput {
  op: string;
  args: CompiledArg[];
  /** Dotted location of the operator key (e.g. `and.1.var`). */
  path: string;
  report: (path: string, message: string) => void;
  options: ResolvedOptions;
}

/** Builds the closure of one operator occurrence. */
export type OpCompiler = (input: OpInput) => Evaluator;

/** Stands in for an argument the expression does not give: json-logic-js sees `undefined`. */
export const ABSENT: Evaluator = () => undefined;

/** The evaluator of argument `i`, or {@link ABSENT}. */
export function argFn(args: readonly CompiledArg[], i: number): Evaluator {
  return i < args.length ? args[i].fn : ABSENT;
}

/** Appends a step to `parent` and makes its children the current trace target. */
export function openStep(ctx: EvalContext, parent: TraceStep[], op: string): TraceStep {
  const step: TraceStep = { op, result: null, passed: false, children: [] };
  parent.push(step);
  ctx.trace = step.children;
  return step;
}

/** Records a step's outcome; returns `result` so callers can `return closeStep(...)`. */
export function closeStep(step: TraceStep, result: unknown): unknown {
  step.result = result;
  step.passed = isTruthy(result);
  return result;
}

/** The node of a literal argument. */
export function valueStep(value: unknown): TraceStep {
  return { op: "value", result: value, passed: isTruthy(value), children: [] };
}

/** How many per-element sub-trees a map/filter/reduce/all/some/none node keeps. */
export const TRACE_ELEMENT_CAP = 20;

/** The node that stands for the element sub-trees left out of a trace. */
export function truncatedStep(omitted: number): TraceStep {
  return { op: "truncated", result: omitted, passed: true, children: [] };
}

/** Joins dotted problem paths; the root is `""`. */
export function joinPath(base: string, segment: string): string {
  return base === "" ? segment : `${base}.${segment}`;
}

/** A problem collector bound to one list. */
export function problemReporter(problems: RuleProblem[]): (path: string, message: string) => void {
  return (path, message) => {
    problems.push({ path, message });
  };
}
