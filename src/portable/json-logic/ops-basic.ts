/**
 * json-logic-js's plain operators, mirrored exactly. The `as number` / `as string` casts
 * only satisfy the type checker: the emitted JavaScript applies the same coercions
 * (loose equality, relational comparison, `+` concatenation, parseFloat's ToString) as
 * json-logic-js does, which is the point.
 */
import { eager1, eager2, eagerList } from "./eager.js";
import type { OpCompiler } from "./runtime.js";
import { isTruthy } from "./truthy.js";

function lessThan(a: unknown, b: unknown): boolean {
  return (a as number) < (b as number);
}

function lessOrEqual(a: unknown, b: unknown): boolean {
  return (a as number) <= (b as number);
}

/** `<`/`<=` with an optional third argument meaning "between" (exclusive/inclusive). */
function between(compare: (a: unknown, b: unknown) => boolean): OpCompiler {
  return ({ op, args }) =>
    args.length <= 2
      ? eager2(op, args, compare)
      : eagerList(op, args, (v) =>
          v[2] === undefined ? compare(v[0], v[1]) : compare(v[0], v[1]) && compare(v[1], v[2]),
        );
}

function minus(a: unknown, b: unknown): number {
  return b === undefined ? -(a as number) : (a as number) - (b as number);
}

function inImpl(a: unknown, b: unknown): boolean {
  if (!b || typeof (b as { indexOf?: unknown }).indexOf === "undefined") return false;
  // Strings and arrays both have indexOf; anything else with an indexOf key throws, as there.
  return (b as { indexOf(x: unknown): number }).indexOf(a) !== -1;
}

function substrImpl(source: unknown, start: unknown, end: unknown): string {
  if ((end as number) < 0) {
    // Emulates PHP's negative length, as json-logic-js does.
    const temp = String(source).substr(start as number);
    return temp.substr(0, temp.length + (end as number));
  }
  return String(source).substr(start as number, end as number);
}

function plus(values: unknown[]): unknown {
  let acc: unknown = 0;
  for (let i = 0; i < values.length; i++) {
    acc = parseFloat(acc as string) + parseFloat(values[i] as string);
  }
  return acc;
}

function times(values: unknown[]): unknown {
  // Array.prototype.reduce without an initial value: one argument comes back unparsed.
  if (values.length === 0) throw new TypeError("Reduce of empty array with no initial value");
  let acc = values[0];
  for (let i = 1; i < values.length; i++) {
    acc = parseFloat(acc as string) * parseFloat(values[i] as string);
  }
  return acc;
}

function merge(values: unknown[]): unknown[] {
  let acc: unknown[] = [];
  for (let i = 0; i < values.length; i++) acc = acc.concat(values[i]);
  return acc;
}

/**
 * `Math.min`/`Math.max` over `values`, exactly (each value made a number as they do, any
 * NaN gives NaN, -0 below +0), in a loop: the values can be a whole context's records,
 * and spread into the call a long array overflows the stack.
 */
function extreme(values: unknown[], lower: boolean): number {
  let out = lower ? Infinity : -Infinity;
  let nan = false;
  for (const v of values) {
    const n = Number(v);
    if (Number.isNaN(n)) nan = true;
    else if (lower ? n < out || (n === 0 && out === 0 && Object.is(n, -0)) : n > out || (n === 0 && out === 0 && Object.is(out, -0))) out = n;
  }
  return nan ? NaN : out;
}

/** json-logic-js's `min` (Math.min over the arguments, so `[]` → Infinity). */
export const jsonLogicMin = (values: unknown[]): number => extreme(values, true);
/** json-logic-js's `max` (Math.max over the arguments, so `[]` → -Infinity). */
export const jsonLogicMax = (values: unknown[]): number => extreme(values, false);

/** The eager operators of json-logic-js, by name. */
export const BASIC_OPERATORS: ReadonlyArray<[string, OpCompiler]> = [
  ["==", ({ op, args }) => eager2(op, args, (a, b) => a == b)],
  ["===", ({ op, args }) => eager2(op, args, (a, b) => a === b)],
  ["!=", ({ op, args }) => eager2(op, args, (a, b) => a != b)],
  ["!==", ({ op, args }) => eager2(op, args, (a, b) => a !== b)],
  [">", ({ op, args }) => eager2(op, args, (a, b) => (a as number) > (b as number))],
  [">=", ({ op, args }) => eager2(op, args, (a, b) => (a as number) >= (b as number))],
  ["<", between(lessThan)],
  ["<=", between(lessOrEqual)],
  ["!!", ({ op, args }) => eager1(op, args, (a) => isTruthy(a))],
  ["!", ({ op, args }) => eager1(op, args, (a) => !isTruthy(a))],
  ["%", ({ op, args }) => eager2(op, args, (a, b) => (a as number) % (b as number))],
  ["/", ({ op, args }) => eager2(op, args, (a, b) => (a as number) / (b as number))],
  ["-", ({ op, args }) => eager2(op, args, minus)],
  ["in", ({ op, args }) => eager2(op, args, inImpl)],
  ["cat", ({ op, args }) => eagerList(op, args, (v) => v.join(""))],
  ["substr", ({ op, args }) => eagerList(op, args, (v) => substrImpl(v[0], v[1], v[2]))],
  ["+", ({ op, args }) => eagerList(op, args, plus)],
  [
    "*",
    ({ op, args, path, report }) => {
      if (args.length === 0) report(path, `"*" needs at least one argument`);
      return eagerList(op, args, times);
    },
  ],
  ["min", ({ op, args }) => eagerList(op, args, jsonLogicMin)],
  ["max", ({ op, args }) => eagerList(op, args, jsonLogicMax)],
  ["merge", ({ op, args }) => eagerList(op, args, merge)],
  [
    "log",
    ({ op, args, options }) =>
      eager1(op, args, (a) => {
        options.log(a);
        return a;
      }),
  ],
];
