/** Equality of a record's values between two passes: what decides that a clean record needs no rebuilding. */
import { canonicalJson } from "../../../portable/resolution/canonical-json.js";

/**
 * True when two value maps (by fieldId) hold the same fields with equal JSON values: a
 * primitive by `===` (or both NaN, which computed fields never keep), an object or array by
 * its canonical JSON. Cheap for the usual record of scalars.
 */
export function sameValues(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let n = 0;
  for (const key in a) {
    n++;
    const x = a[key];
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    const y = b[key];
    if (x === y) continue;
    if (x === null || y === null || typeof x !== "object" || typeof y !== "object") return false;
    if (canonicalJson(x) !== canonicalJson(y)) return false;
  }
  for (const key in b) if (Object.prototype.hasOwnProperty.call(b, key)) n--;
  return n === 0;
}
