/**
 * Order-insensitive comparison of JSON values: apply decides "unchanged" by comparing a
 * document with what the service returns, and the two may list object keys in any order
 * or leave out properties whose value is undefined.
 */

/** JSON text with object keys sorted at every depth and undefined properties dropped. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

/** True when two JSON values are equal up to key order and undefined properties. */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
