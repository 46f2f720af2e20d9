/**
 * `map`, `filter`, `reduce`, `all`, `some`, `none`: the first argument is evaluated in the
 * current scope; the second runs once per element with the element as its data (for
 * `reduce`, `{current, accumulator}`), never through the top-level resolver.
 */
import {
  TRACE_ELEMENT_CAP,
  argFn,
  closeStep,
  openStep,
  truncatedStep,
  type EvalContext,
  type Evaluator,
  type OpCompiler,
} from "./runtime.js";
import type { TraceStep } from "./types.js";
import { isTruthy } from "./truthy.js";

/**
 * Runs the per-element logic, keeping at most {@link TRACE_ELEMENT_CAP} element sub-trees
 * in the trace; later elements run untraced (and cheaply) and are only counted.
 */
class ElementRunner {
  private evaluated = 0;

  constructor(
    private readonly ctx: EvalContext,
    private readonly step: TraceStep | null,
    private readonly logic: Evaluator,
  ) {}

  run(element: unknown): unknown {
    if (this.step !== null) {
      this.ctx.trace = this.evaluated < TRACE_ELEMENT_CAP ? this.step.children : null;
      this.evaluated++;
    }
    return this.logic(element, this.ctx);
  }

  finish(): void {
    if (this.step !== null && this.evaluated > TRACE_ELEMENT_CAP) {
      this.step.children.push(truncatedStep(this.evaluated - TRACE_ELEMENT_CAP));
    }
  }
}

/** What a scoped operator does once its array (and, for reduce, initial) are known. */
type ScopedBody = (source: unknown, run: ElementRunner, initial: unknown) => unknown;

function scoped(body: ScopedBody, hasInitial = false): OpCompiler {
  return ({ op, args }): Evaluator => {
    const source = argFn(args, 0);
    const logic = argFn(args, 1);
    // json-logic-js tests `typeof values[2] !== "undefined"` on the raw argument, so only
    // a literally absent initial means null; one that evaluates to undefined stays so.
    const third = args[2];
    const initialFn =
      hasInitial && third !== undefined && !(third.isConst && third.value === undefined) ? third.fn : null;
    return (data, ctx) => {
      const parent = ctx.trace;
      const step = parent === null ? null : openStep(ctx, parent, op);
      const array = source(data, ctx);
      let initial: unknown = null;
      if (initialFn !== null) initial = initialFn(data, ctx);
      const runner = new ElementRunner(ctx, step, logic);
      const wasTop = ctx.top;
      ctx.top = false;
      const result = body(array, runner, initial);
      ctx.top = wasTop;
      runner.finish();
      if (step === null) return result;
      ctx.trace = parent;
      return closeStep(step, result);
    };
  };
}

/** The operators that run logic per element, by name. */
export const SCOPED_OPERATORS: ReadonlyArray<[string, OpCompiler]> = [
  ["map", scoped((source, run) => (Array.isArray(source) ? source.map((el) => run.run(el)) : []))],
  [
    "filter",
    scoped((source, run) => (Array.isArray(source) ? source.filter((el) => isTruthy(run.run(el))) : [])),
  ],
  [
    "reduce",
    scoped((source, run, initial) => {
      if (!Array.isArray(source)) return initial;
      return source.reduce(
        (accumulator: unknown, current: unknown) => run.run({ current, accumulator }),
        initial,
      );
    }, true),
  ],
  [
    "all",
    scoped((source, run) => {
      // All of an empty set is false, as json-logic-js decides.
      if (!Array.isArray(source) || source.length === 0) return false;
      for (let i = 0; i < source.length; i++) if (!isTruthy(run.run(source[i]))) return false;
      return true;
    }),
  ],
  [
    "some",
    scoped((source, run) => {
      if (!Array.isArray(source) || source.length === 0) return false;
      for (let i = 0; i < source.length; i++) if (isTruthy(run.run(source[i]))) return true;
      return false;
    }),
  ],
  [
    "none",
    scoped((source, run) => {
      if (!Array.isArray(source) || source.length === 0) return true;
      for (let i = 0; i < source.length; i++) if (isTruthy(run.run(source[i]))) return false;
      return true;
    }),
  ],
];
