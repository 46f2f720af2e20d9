/**
 * Values as they read back from the store: a JSON round trip loses only the sign of zero
 * (`-0` is written `0`), so a pass resolving from memory must see `0` too, as a pass
 * reading the stored rows does. Returns `values` itself when nothing in it is `-0` (the
 * usual case: no copy).
 */
export function jsonCopy<T extends Record<string, unknown>>(values: T): T {
  let copy: Record<string, unknown> | undefined;
  for (const key in values) {
    const v = values[key];
    const fixed = normalize(v);
    if (fixed !== v) put((copy ??= { ...values }), key, fixed);
  }
  return (copy ?? values) as T;
}

function normalize(v: unknown): unknown {
  if (typeof v === "number") return Object.is(v, -0) ? 0 : v;
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((item, i) => {
      const fixed = normalize(item);
      if (fixed !== item) (out ??= [...v])[i] = fixed;
    });
    return out ?? v;
  }
  const obj = v as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(obj)) {
    const fixed = normalize(obj[key]);
    if (fixed !== obj[key]) put((out ??= { ...obj }), key, fixed);
  }
  return out ?? v;
}

/** Sets an own property, whatever its name (`__proto__` from parsed JSON stays a plain key). */
function put(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
