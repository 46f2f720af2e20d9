/**
 * Builders for operators whose arguments are all evaluated first, in order (json-logic-js's
 * "everyone else gets immediate depth-first recursion"). Fixed-arity variants avoid
 * allocating an argument array on the untraced path.
 */
import { argFn, closeStep, openStep, type CompiledArg, type EvalContext, type Evaluator } from "./runtime.js";

/** Implementation over the evaluated argument list. */
export type ListImpl = (values: unknown[], data: unknown, ctx: EvalContext) => unknown;

/** An operator taking any number of evaluated arguments. */
export function eagerList(op: string, args: readonly CompiledArg[], impl: ListImpl): Evaluator {
  const fns = args.map((a) => a.fn);
  const n = fns.length;
  return (data, ctx) => {
    const parent = ctx.trace;
    const step = parent === null ? null : openStep(ctx, parent, op);
    const values = new Array<unknown>(n);
    for (let i = 0; i < n; i++) values[i] = fns[i](data, ctx);
    if (step === null) return impl(values, data, ctx);
    ctx.trace = parent;
    return closeStep(step, impl(values, data, ctx));
  };
}

/** An operator reading only its first argument (extra arguments are still evaluated). */
export function eager1(op: string, args: readonly CompiledArg[], impl: (a: unknown) => unknown): Evaluator {
  if (args.length > 1) return eagerList(op, args, (v) => impl(v[0]));
  const fa = argFn(args, 0);
  return (data, ctx) => {
    const parent = ctx.trace;
    if (parent === null) return impl(fa(data, ctx));
    const step = openStep(ctx, parent, op);
    const a = fa(data, ctx);
    ctx.trace = parent;
    return closeStep(step, impl(a));
  };
}

/** An operator reading its first two arguments (extra arguments are still evaluated). */
export function eager2(
  op: string,
  args: readonly CompiledArg[],
  impl: (a: unknown, b: unknown) => unknown,
): Evaluator {
  if (args.length > 2) return eagerList(op, args, (v) => impl(v[0], v[1]));
  const fa = argFn(args, 0);
  const fb = argFn(args, 1);
  return (data, ctx) => {
    const parent = ctx.trace;
    if (parent === null) return impl(fa(data, ctx), fb(data, ctx));
    const step = openStep(ctx, parent, op);
    const a = fa(data, ctx);
    const b = fb(data, ctx);
    ctx.trace = parent;
    return closeStep(step, impl(a, b));
  };
}
