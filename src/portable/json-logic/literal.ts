/** How json-logic-js tells operations from data, and how literals are kept. */

/** Deeper expressions are refused rather than risking a stack overflow. */
export const MAX_EXPRESSION_DEPTH = 256;

/**
 * json-logic-js's `is_logic`: a non-null, non-array object with exactly one own
 * enumerable key. Anything else (including multi-key objects) is data.
 */
export function isLogic(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 1
  );
}

/**
 * True when `value` holds an operation somewhere json-logic-js would evaluate it. Gives
 * up (false) past {@link MAX_EXPRESSION_DEPTH}, where the compiler reports the depth.
 */
export function containsLogic(value: unknown, depth = 0): boolean {
  if (Array.isArray(value)) {
    return depth <= MAX_EXPRESSION_DEPTH && value.some((v) => containsLogic(v, depth + 1));
  }
  return isLogic(value);
}

/**
 * A fresh copy of the arrays of a literal, sharing everything else. json-logic-js maps
 * array literals on every apply (so each evaluation gets new arrays) but returns object
 * literals as they are; copying keeps identity-sensitive ops (`===`, `in`) identical.
 */
export function cloneArrays(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const out = new Array<unknown>(value.length);
  for (let i = 0; i < value.length; i++) out[i] = cloneArrays(value[i]);
  return out;
}
