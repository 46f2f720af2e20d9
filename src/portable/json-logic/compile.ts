/**
 * Compiles a JSON Logic expression once into a tree of closures. All dispatch (operator
 * lookup, argument normalisation, static path splitting) happens here, so an evaluation
 * only runs closures.
 */
import { JsonLogicCompileError } from "./compile-error.js";
import { MAX_EXPRESSION_DEPTH, cloneArrays, isLogic } from "./literal.js";
import { findOperator, unknownOperatorMessage } from "./operators.js";
import {
  ABSENT,
  closeStep,
  joinPath,
  openStep,
  problemReporter,
  valueStep,
  type CompiledArg,
  type EvalContext,
  type Evaluator,
  type ResolvedOptions,
} from "./runtime.js";
import type {
  CompileOptions,
  CompiledExpression,
  EvaluateOptions,
  EvaluationResult,
  RuleProblem,
  TraceStep,
  VarResolver,
} from "./types.js";


/** Fills in option defaults. */
export function resolveOptions(options: CompileOptions | undefined): ResolvedOptions {
  return {
    extraOperators: options?.extraOperators ?? true,
    // A service must not write rule output to its own stdout (it would corrupt --json
    // output and server logs), so `log` is silent unless a caller supplies a sink.
    log: options?.log ?? (() => undefined),
  };
}

function constant(value: unknown, path: string): CompiledArg {
  if (Array.isArray(value)) {
    Object.freeze(value);
    const fn: Evaluator = (_data, ctx) => {
      const copy = cloneArrays(value);
      if (ctx.trace !== null) ctx.trace.push(valueStep(copy));
      return copy;
    };
    return { fn, isConst: true, value, path };
  }
  const fn: Evaluator = (_data, ctx) => {
    if (ctx.trace !== null) ctx.trace.push(valueStep(value));
    return value;
  };
  return { fn, isConst: true, value, path };
}

/** An array holding logic: evaluated element-wise, as json-logic-js maps arrays. */
function arrayNode(items: Evaluator[]): Evaluator {
  const n = items.length;
  return (data, ctx) => {
    const parent = ctx.trace;
    const step = parent === null ? null : openStep(ctx, parent, "array");
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = items[i](data, ctx);
    if (step === null) return out;
    ctx.trace = parent;
    return closeStep(step, out);
  };
}

/**
 * Compiles one node, reporting problems instead of stopping so that every problem is
 * found in one pass. Problem paths are dotted (`and.1.var`); the root is `""`.
 */
export function compileNode(
  expression: unknown,
  path: string,
  options: ResolvedOptions,
  problems: RuleProblem[],
  depth = 0,
): CompiledArg {
  if (depth > MAX_EXPRESSION_DEPTH) {
    problems.push({ path, message: `expression is nested deeper than ${MAX_EXPRESSION_DEPTH} levels` });
    return { fn: ABSENT, isConst: false, value: undefined, path };
  }
  if (Array.isArray(expression)) {
    const items = expression.map((e, i) =>
      compileNode(e, joinPath(path, String(i)), options, problems, depth + 1),
    );
    if (items.every((item) => item.isConst)) return constant(items.map((item) => item.value), path);
    return { fn: arrayNode(items.map((item) => item.fn)), isConst: false, value: undefined, path };
  }
  if (!isLogic(expression)) return constant(expression, path);

  const op = Object.keys(expression)[0];
  const raw = expression[op];
  const opPath = joinPath(path, op);
  // json-logic-js's "easy syntax for unary operators": a non-array argument is [argument].
  const args = Array.isArray(raw)
    ? raw.map((a, i) => compileNode(a, joinPath(opPath, String(i)), options, problems, depth + 1))
    : [compileNode(raw, opPath, options, problems, depth + 1)];
  const compiler = findOperator(op, options.extraOperators);
  if (compiler === undefined) {
    problems.push({ path: opPath, message: unknownOperatorMessage(op, options.extraOperators) });
    return { fn: ABSENT, isConst: false, value: undefined, path };
  }
  const fn = compiler({ op, args, path: opPath, report: problemReporter(problems), options });
  return { fn, isConst: false, value: undefined, path };
}

/** Compiles `expression` or throws with every problem found. */
function compileOrThrow(expression: unknown, options: ResolvedOptions): Evaluator {
  const problems: RuleProblem[] = [];
  const root = compileNode(expression, "", options, problems);
  if (problems.length > 0) throw new JsonLogicCompileError(problems);
  return root.fn;
}

function isVarResolver(value: unknown): value is VarResolver {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { get?: unknown }).get === "function"
  );
}

class CompiledRule implements CompiledExpression {
  private readonly dynamic: (expression: unknown) => Evaluator;

  constructor(
    private readonly root: Evaluator,
    options: ResolvedOptions,
  ) {
    this.dynamic = (expression) => compileOrThrow(expression, options);
  }

  evaluate(data?: VarResolver | object | null, options?: EvaluateOptions): EvaluationResult {
    const roots: TraceStep[] | null = options?.trace === true ? [] : null;
    const resolver = isVarResolver(data) ? data : null;
    const ctx: EvalContext = { resolver, top: true, inputs: {}, trace: roots, dynamic: this.dynamic };
    const out: EvaluationResult = { result: null, inputs: ctx.inputs };
    try {
      out.result = this.root(resolver === null ? data : undefined, ctx);
    } catch (error) {
      out.result = null;
      out.error = error instanceof Error ? error.message : String(error);
    }
    if (roots !== null) {
      out.steps = roots[0] ?? { op: "error", result: null, passed: false, children: [] };
    }
    return out;
  }
}

/**
 * Compiles a JSON Logic expression (json-logic-js semantics; `method` is refused) for
 * repeated evaluation. Throws {@link JsonLogicCompileError} listing every problem:
 * unknown operators, `method`, calls json-logic-js could never evaluate (`*` without
 * arguments, `missing_some` without keys), and static `var`/`missing` paths with a
 * `__proto__`, `constructor` or `prototype` segment. Multi-key objects are data, as in
 * json-logic-js; use `validateRuleExpression` to refuse them.
 */
export function compileExpression(expression: unknown, options?: CompileOptions): CompiledExpression {
  const resolved = resolveOptions(options);
  return new CompiledRule(compileOrThrow(expression, resolved), resolved);
}
