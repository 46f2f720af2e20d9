/** `var`, `missing` and `missing_some`: the operators that read the data. */
import { eagerList } from "./eager.js";
import { cloneArrays, containsLogic, isLogic } from "./literal.js";
import {
  closeStep,
  joinPath,
  openStep,
  type CompiledArg,
  type EvalContext,
  type Evaluator,
  type OpCompiler,
  type OpInput,
} from "./runtime.js";
import {
  forbiddenMessage,
  forbiddenSegment,
  isWholeDataPath,
  readPath,
  readVar,
  readWholeData,
} from "./var-read.js";

/**
 * A path the compiler can split: a primitive. Array and object paths (json-logic-js
 * stringifies them) are left to run time, where String() may throw as it does there.
 */
function isStaticPath(path: unknown): boolean {
  return path === null || (typeof path !== "object" && typeof path !== "function");
}

/** Reports a static path that has a forbidden segment. */
function checkStaticPath(path: unknown, where: string, report: OpInput["report"]): void {
  if (isWholeDataPath(path) || !isStaticPath(path)) return;
  const key = String(path);
  const bad = forbiddenSegment(key.split("."));
  if (bad !== undefined) report(where, forbiddenMessage(key, bad));
}

/**
 * The evaluator of a `var` argument for use inside the var's own step: literals already
 * show in the step's `args`, so they do not also get value nodes.
 */
function untracedIfLiteral(arg: CompiledArg): Evaluator {
  if (!arg.isConst) return arg.fn;
  const value = arg.value;
  return () => cloneArrays(value);
}

/** A `var` whose path is known at compile time: split once, never per evaluation. */
function staticVar(path: CompiledArg | undefined, fallbackArg: CompiledArg | undefined): Evaluator {
  const pathValue = path?.value;
  const whole = isWholeDataPath(pathValue);
  const key = whole ? "" : String(pathValue);
  const segments = key.split(".");
  const fallbackFn = fallbackArg === undefined ? undefined : untracedIfLiteral(fallbackArg);
  const read = (fallback: unknown, data: unknown, ctx: EvalContext): unknown => {
    if (whole) return readWholeData(data, ctx);
    return readPath(key, segments, fallback === undefined ? null : fallback, data, ctx);
  };
  return (data, ctx) => {
    const parent = ctx.trace;
    // The default is evaluated even when unused: json-logic-js evaluates all arguments.
    if (parent === null) return read(fallbackFn === undefined ? undefined : fallbackFn(data, ctx), data, ctx);
    const step = openStep(ctx, parent, "var");
    const fallback = fallbackFn === undefined ? undefined : fallbackFn(data, ctx);
    ctx.trace = parent;
    step.args = fallbackFn !== undefined ? [pathValue, fallback] : path !== undefined ? [pathValue] : [];
    return closeStep(step, read(fallback, data, ctx));
  };
}

/** A `var` whose path is computed: checked for forbidden segments at every read. */
function dynamicVar(args: readonly CompiledArg[]): Evaluator {
  const fns = args.map(untracedIfLiteral);
  return (data, ctx) => {
    const parent = ctx.trace;
    const step = parent === null ? null : openStep(ctx, parent, "var");
    const values = fns.map((fn) => fn(data, ctx));
    if (step === null) return readVar(values[0], values[1], data, ctx);
    ctx.trace = parent;
    step.args = values.slice(0, 2);
    return closeStep(step, readVar(values[0], values[1], data, ctx));
  };
}

const compileVar: OpCompiler = ({ args, report }) => {
  const first = args[0];
  if (first !== undefined && first.isConst) checkStaticPath(first.value, first.path, report);
  const isStatic = first === undefined || (first.isConst && isStaticPath(first.value));
  if (args.length > 2 || !isStatic) return dynamicVar(args);
  return staticVar(first, args[1]);
};

/** json-logic-js's `apply` over a value that came from data: logic in it is evaluated. */
function applyDynamic(value: unknown, data: unknown, ctx: EvalContext): unknown {
  if (Array.isArray(value)) return value.map((v) => applyDynamic(v, data, ctx));
  if (!isLogic(value)) return value;
  const saved = ctx.trace;
  ctx.trace = null;
  const result = ctx.dynamic(value)(data, ctx);
  ctx.trace = saved;
  return result;
}

/** `apply({"var": key}, data)`: an array key is the var's argument list. */
function readKey(key: unknown, data: unknown, ctx: EvalContext): unknown {
  const varArgs: unknown[] = Array.isArray(key) ? key : [key];
  if (!containsLogic(key)) return readVar(varArgs[0], varArgs[1], data, ctx);
  const evaluated = varArgs.map((k) => applyDynamic(k, data, ctx));
  return readVar(evaluated[0], evaluated[1], data, ctx);
}

/** `missing`: the keys (one array argument, or all arguments) whose value is null or "". */
function missingImpl(values: unknown[], data: unknown, ctx: EvalContext): unknown[] {
  const keys = Array.isArray(values[0]) ? (values[0] as unknown[]) : values;
  const missing: unknown[] = [];
  for (let i = 0; i < keys.length; i++) {
    const value = readKey(keys[i], data, ctx);
    if (value === null || value === "") missing.push(keys[i]);
  }
  return missing;
}

/** `missing_some`: [] when at least `need` of the keys are present, else the missing ones. */
function missingSomeImpl(values: unknown[], data: unknown, ctx: EvalContext): unknown[] {
  const need = values[0];
  const options = values[1];
  // json-logic-js re-applies `{"missing": options}`, evaluating any logic inside options.
  const optionArgs = Array.isArray(options) ? options : [options];
  const missing = missingImpl(
    optionArgs.map((o) => applyDynamic(o, data, ctx)),
    data,
    ctx,
  );
  // Throws on null/undefined options, as json-logic-js does.
  return (options as { length: number }).length - missing.length >= (need as number) ? [] : missing;
}

/** Checks the literal keys of `missing`/`missing_some` like static `var` paths. */
function checkStaticKeys(args: readonly CompiledArg[], report: OpInput["report"]): void {
  for (const arg of args) {
    if (!arg.isConst) continue;
    if (Array.isArray(arg.value)) {
      arg.value.forEach((k, i) => checkStaticPath(k, joinPath(arg.path, String(i)), report));
    } else {
      checkStaticPath(arg.value, arg.path, report);
    }
  }
}

/** The data-reading operators, by name. */
export const DATA_OPERATORS: ReadonlyArray<[string, OpCompiler]> = [
  ["var", compileVar],
  [
    "missing",
    ({ op, args, report }) => {
      checkStaticKeys(args, report);
      return eagerList(op, args, missingImpl);
    },
  ],
  [
    "missing_some",
    ({ op, args, path, report }) => {
      const options = args[1];
      if (options === undefined || (options.isConst && options.value == null)) {
        report(path, `"missing_some" needs [minimum, [keys...]]`);
      } else {
        checkStaticKeys([options], report);
      }
      return eagerList(op, args, missingSomeImpl);
    },
  ],
];
