import { createHmac, timingSafeEqual } from "node:crypto";
import { errors } from "../../contract/errors.js";

/**
 * What a keyset value must be: a text or id column sorts as a string, a number column as
 * a number; a time (ISO text, or epoch milliseconds where NULLs sort first), a boolean or a
 * path into a JSON column as any of these scalars; the tie-breaker is an id (text).
 */
export type CursorValueKind = "text" | "number" | "scalar";

/** Bytes of HMAC-SHA-256 a cursor carries (128 bits: forging one is out of reach). */
const TAG_BYTES = 16;

const invalid = () => errors.invalid("cursor is invalid: pass the nextCursor of the previous page of the same list and sort unchanged");

function tagOf(key: Buffer, scope: string, payload: string): Buffer {
  return createHmac("sha256", key).update(scope).update("\n").update(payload).digest().subarray(0, TAG_BYTES);
}

/**
 * A list cursor: the keyset values of the last row of a page, as base64url JSON, and an
 * HMAC of them under the store's key and the list's `scope` (its table and sort order).
 * Only the server can make one, and one made for another list or sort does not verify.
 */
export function encodeCursor(key: Buffer, scope: string, values: readonly unknown[]): string {
  const payload = Buffer.from(JSON.stringify(values), "utf8").toString("base64url");
  return `${payload}.${tagOf(key, scope, payload).toString("base64url")}`;
}

/**
 * The keyset values of a cursor this store made for this `scope`, checked against the
 * kinds the sort keys read (so even a signed value can never bind anything unexpected):
 * anything else is a 400 `invalid_request`. Pure: no I/O, the key is given.
 */
export function decodeCursor(key: Buffer, scope: string, cursor: string, kinds: readonly CursorValueKind[]): unknown[] {
  const dot = cursor.indexOf(".");
  if (dot <= 0 || cursor.length > 4096) throw invalid();
  const payload = cursor.slice(0, dot);
  const tag = Buffer.from(cursor.slice(dot + 1), "base64url");
  const expected = tagOf(key, scope, payload);
  if (tag.length !== expected.length || !timingSafeEqual(tag, expected)) throw invalid();
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(values) || values.length !== kinds.length) throw invalid();
  values.forEach((v, i) => {
    const isText = typeof v === "string";
    const isNumber = typeof v === "number" && Number.isFinite(v);
    const ok = kinds[i] === "text" ? isText : kinds[i] === "number" ? isNumber : isText || isNumber || typeof v === "boolean";
    if (!ok) throw invalid();
  });
  return values;
}
