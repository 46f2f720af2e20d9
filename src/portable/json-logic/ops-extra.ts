/**
 * ddsctl's operators that json-logic-js lacks (docs/pipeline.md: sum, avg and count
 * over arrays, and min and max accepting an array). They aggregate relationship paths such as
 * `Applicant.income`, which resolve to arrays.
 */
import { eagerList } from "./eager.js";
import { jsonLogicMax, jsonLogicMin } from "./ops-basic.js";
import type { OpCompiler } from "./runtime.js";

/**
 * The values to aggregate: one array argument is the list; one null/undefined argument
 * (a missing path) is an empty list; otherwise the arguments, flattened one level.
 */
function aggregated(values: unknown[]): unknown[] {
  if (values.length === 1) {
    const only = values[0];
    if (only === null || only === undefined) return [];
    return Array.isArray(only) ? only : values;
  }
  const out: unknown[] = [];
  for (const v of values) {
    if (Array.isArray(v)) for (const item of v) out.push(item);
    else out.push(v);
  }
  return out;
}

/** Sum with `Number` casting (so null and "" count as 0, "12abc" as NaN). */
function sum(items: unknown[]): number {
  let total = 0;
  for (let i = 0; i < items.length; i++) total += Number(items[i]);
  return total;
}

/**
 * Math.min/Math.max over an array, in a loop so long arrays cannot overflow the argument
 * limit of a spread call; the coercion and NaN/-0 rules are Math's own.
 */
function fold(items: unknown[], pick: (a: number, b: number) => number, start: number): number | null {
  if (items.length === 0) return null;
  let acc = start;
  for (let i = 0; i < items.length; i++) acc = pick(acc, Number(items[i]));
  return acc;
}

function extendedMin(values: unknown[]): number | null {
  const only = values[0];
  if (values.length === 1 && Array.isArray(only)) return fold(only, Math.min, Infinity);
  return jsonLogicMin(values);
}

function extendedMax(values: unknown[]): number | null {
  const only = values[0];
  if (values.length === 1 && Array.isArray(only)) return fold(only, Math.max, -Infinity);
  return jsonLogicMax(values);
}

function count(values: unknown[]): number {
  if (values.length !== 1) return values.length;
  const only = values[0];
  if (only === null || only === undefined) return 0;
  return Array.isArray(only) ? only.length : 1;
}

/** The extra operators (they replace json-logic-js's `min`/`max`), by name. */
export const EXTRA_OPERATORS: ReadonlyArray<[string, OpCompiler]> = [
  ["sum", ({ op, args }) => eagerList(op, args, (v) => sum(aggregated(v)))],
  [
    "avg",
    ({ op, args }) =>
      eagerList(op, args, (v) => {
        const items = aggregated(v);
        return items.length === 0 ? null : sum(items) / items.length;
      }),
  ],
  ["count", ({ op, args }) => eagerList(op, args, count)],
  ["min", ({ op, args }) => eagerList(op, args, extendedMin)],
  ["max", ({ op, args }) => eagerList(op, args, extendedMax)],
];
