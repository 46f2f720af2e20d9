/**
 * `if`/`?:`, `and`, `or`: they evaluate their arguments lazily, so the trace holds only
 * what was actually evaluated, which is how a reader sees which branch decided.
 */
import { closeStep, openStep, type Evaluator, type OpCompiler } from "./runtime.js";
import { isTruthy } from "./truthy.js";

/**
 * Pairs of (condition, branch), then an optional else. An even count without a true
 * condition gives null; no arguments give null.
 */
const compileIf: OpCompiler = ({ op, args }): Evaluator => {
  const fns = args.map((a) => a.fn);
  const n = fns.length;
  return (data, ctx) => {
    const parent = ctx.trace;
    const step = parent === null ? null : openStep(ctx, parent, op);
    let result: unknown = null;
    let i = 0;
    let decided = false;
    for (; i < n - 1; i += 2) {
      if (isTruthy(fns[i](data, ctx))) {
        result = fns[i + 1](data, ctx);
        decided = true;
        break;
      }
    }
    if (!decided && n === i + 1) result = fns[i](data, ctx);
    if (step === null) return result;
    ctx.trace = parent;
    return closeStep(step, result);
  };
};

/**
 * `and` (stop at the first falsy) and `or` (stop at the first truthy) return the deciding
 * value itself, or the last one; with no arguments they return undefined, as json-logic-js.
 */
function shortCircuit(stopWhenTruthy: boolean): OpCompiler {
  return ({ op, args }): Evaluator => {
    const fns = args.map((a) => a.fn);
    const n = fns.length;
    return (data, ctx) => {
      const parent = ctx.trace;
      const step = parent === null ? null : openStep(ctx, parent, op);
      let current: unknown;
      for (let i = 0; i < n; i++) {
        current = fns[i](data, ctx);
        if (isTruthy(current) === stopWhenTruthy) break;
      }
      if (step === null) return current;
      ctx.trace = parent;
      return closeStep(step, current);
    };
  };
}

/** The lazily evaluating operators, by name. */
export const CONTROL_OPERATORS: ReadonlyArray<[string, OpCompiler]> = [
  ["if", compileIf],
  ["?:", compileIf],
  ["and", shortCircuit(false)],
  ["or", shortCircuit(true)],
];
