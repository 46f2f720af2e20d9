/** Equality of a record's values between two passes: what decides that a clean record needs no rebuilding. */
import { canonicalJson } from "../../../portable/resolution/canonical-json.js";

/**
 * True when two JSON values are equal: a primitive by `===` (or both NaN, which computed
 * fields never keep), an object or array by its canonical JSON.
 */
export function sameValue(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (x === null || y === null || typeof x !== "object" || typeof y !== "object") return false;
  return canonicalJson(x) === canonicalJson(y);
}

/**
 * True when two value maps (by fieldId) hold the same fields with equal JSON values
 * ({@link sameValue}). Cheap for the usual record of scalars.
 */
export function sameValues(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  if (a === b) return true;
  let n = 0;
  for (const key in a) {
    n++;
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    if (!sameValue(a[key], b[key])) return false;
  }
  for (const key in b) if (Object.prototype.hasOwnProperty.call(b, key)) n--;
  return n === 0;
}
