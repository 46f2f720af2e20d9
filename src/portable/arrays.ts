/**
 * Array helpers that never spread an array into a call: `a.push(...b)` and
 * `Math.max(...b)` pass every element as an argument on the stack, and past about 100,000
 * elements (less on a deep stack) that is "Maximum call stack size exceeded". Anything
 * whose length the user controls (a list, a file, a context's records) goes through
 * these; test/unit/no-spread-calls.test.ts keeps spreads out of calls.
 */

/** Appends every item to `target`, in order; returns `target`. */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** The largest of `values` (`-Infinity` for none), as `Math.max` compares. */
export function maxOf(values: Iterable<number>): number {
  let out = -Infinity;
  for (const v of values) if (v > out || Number.isNaN(v)) out = v;
  return out;
}
