/**
 * RFC 8785 canonical JSON. Byte-identical output for equal data, whatever the key order,
 * is what makes a pass reproducible. Pure (no node: imports): resolution code that the
 * studio's page bundles compares values with it; the hash built on it is in record-hash.ts.
 */
import canonicalizeModule from "canonicalize";

type Canonicalize = (input: unknown) => string | undefined;

// canonicalize is CommonJS (`module.exports = fn`) but ships an ESM-style `export default`
// declaration, so under NodeNext TypeScript types the default import as `{ default: fn }`
// while Node hands us the function itself. Accept both shapes.
const canonicalize: Canonicalize =
  typeof canonicalizeModule === "function"
    ? (canonicalizeModule as Canonicalize)
    : (canonicalizeModule as unknown as { default: Canonicalize }).default;

/**
 * A JSON-safe copy of `value`: non-finite numbers and `undefined` become null (JSON cannot
 * hold them, and canonicalize refuses them), object keys with undefined values are dropped.
 */
export function toJsonValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (value === null || typeof value !== "object") {
    // Functions, symbols and bigints cannot come from JSON; keep the output JSON anyway.
    return typeof value === "function" || typeof value === "symbol" || typeof value === "bigint" ? null : value;
  }
  if (Array.isArray(value)) return value.map(toJsonValue);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    // defineProperty so that a "__proto__" key from parsed JSON stays a plain key.
    if (v !== undefined) Object.defineProperty(out, key, { value: toJsonValue(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The RFC 8785 canonical JSON text of `value`. Never throws: a value JSON cannot hold
 * (NaN, Infinity, a bigint) is first made JSON-safe with {@link toJsonValue}.
 */
export function canonicalJson(value: unknown): string {
  const flat = flatCanonical(value);
  if (flat !== undefined) return flat;
  try {
    return canonicalize(value) ?? "null";
  } catch {
    return canonicalize(toJsonValue(value)) ?? "null";
  }
}

/**
 * The canonical text of an object whose values are all strings, finite numbers, booleans or
 * null (a record's data, most often), written directly: RFC 8785 serialises such values as
 * ECMAScript's JSON.stringify does and orders keys by their UTF-16 code units, as
 * `Array.prototype.sort` does. Undefined for any other value (the general path takes it).
 */
function flatCanonical(value: unknown): string | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  for (const k of keys) {
    const v = obj[k];
    const t = typeof v;
    if (!(t === "string" || t === "boolean" || v === null || (t === "number" && Number.isFinite(v)))) return undefined;
  }
  keys.sort();
  let out = "{";
  for (let i = 0; i < keys.length; i++) out += `${i === 0 ? "" : ","}${JSON.stringify(keys[i])}:${JSON.stringify(obj[keys[i]])}`;
  return `${out}}`;
}
