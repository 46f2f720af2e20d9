/**
 * JSON Logic truthiness (https://jsonlogic.com/truthy): JavaScript's, except that an
 * empty array is falsy, so that `missing` results can drive `if` directly.
 */
export function isTruthy(value: unknown): boolean {
  if (Array.isArray(value) && value.length === 0) return false;
  return !!value;
}
