import type { Sql } from "./sql.js";
import { flat } from "../../util/flat-string.js";

/**
 * How a contribution's values and confidences are stored: keyed by the field's integer key
 * (`"f12"`) instead of its 36-character id, so a rename changes nothing stored and a row is
 * a fraction of the size. The `f` keeps keys from looking like array indexes, which
 * JavaScript would reorder: values keep the order they were contributed in.
 */

/** Fields of a model by id, with their keys. */
export interface KeyedFields {
  fields: readonly { id: string; key: number }[];
}

const keysCache = new WeakMap<KeyedFields, Map<string, string>>();

/** A model's stored keys by field id, each already quoted for JSON (`"f12":`), built once per model object. */
function keysOf(model: KeyedFields): Map<string, string> {
  let map = keysCache.get(model);
  if (!map) keysCache.set(model, (map = new Map(model.fields.map((f) => [f.id, `"f${f.key}":`]))));
  return map;
}

/**
 * The stored JSON of values keyed by fieldId. Written as text, member by member: three
 * times as fast as building the keyed object and stringifying it (an import writes one
 * per line).
 */
export function encodeValues(model: KeyedFields, byFieldId: Record<string, unknown>): string {
  const keys = keysOf(model);
  let out = "";
  for (const id in byFieldId) {
    const v = byFieldId[id];
    if (v === undefined) continue;
    out += (out === "" ? "{" : ",") + keys.get(id)! + JSON.stringify(v);
  }
  return out === "" ? "{}" : flat(`${out}}`);
}

/** The stored JSON of the confidences other than the default 1, or null when every one is 1. */
export function encodeConfidences(model: KeyedFields, byFieldId: Record<string, number>): string | null {
  const keys = keysOf(model);
  let out = "";
  for (const id in byFieldId) {
    const c = byFieldId[id];
    if (c !== 1) out += (out === "" ? "{" : ",") + keys.get(id)! + JSON.stringify(c);
  }
  return out === "" ? null : flat(`${out}}`);
}

/** The field keys a stored object uses. */
export function storedKeys(text: string | null, into: Set<number>): void {
  if (text === null) return;
  for (const k of Object.keys(JSON.parse(text) as object)) into.add(Number(k.slice(1)));
}

/** Stored values back to fieldIds (`ids` maps every key the object uses). */
export function decodeValues(text: string, ids: ReadonlyMap<number, string>): Record<string, unknown> {
  const stored = JSON.parse(text) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(stored)) out[ids.get(Number(k.slice(1))) ?? k] = v;
  return out;
}

/** Stored confidences back to one per field of `data` (keyed by fieldId), 1 where none is stored. */
export function decodeConfidences(text: string | null, data: Record<string, unknown>, ids: ReadonlyMap<number, string>): Record<string, number> {
  const stored = text === null ? {} : (JSON.parse(text) as Record<string, number>);
  const byId: Record<string, number> = {};
  for (const [k, c] of Object.entries(stored)) byId[ids.get(Number(k.slice(1))) ?? k] = c;
  const out: Record<string, number> = {};
  for (const id of Object.keys(data)) out[id] = byId[id] ?? 1;
  return out;
}

const MEMO = "field-ids";

/**
 * The fieldIds of field keys. A field's key and id never change and fields are never
 * removed from the table, so what was read once is kept for the store's life.
 */
export async function fieldIdsOf(db: Sql, keys: Iterable<number>): Promise<Map<number, string>> {
  let known = db.memo.get(MEMO) as Map<number, string> | undefined;
  if (!known) db.memo.set(MEMO, (known = new Map()));
  const missing = [...new Set(keys)].filter((k) => !known.has(k));
  for (let i = 0; i < missing.length; i += 500) {
    const chunk = missing.slice(i, i + 500);
    const rows = await db.all<{ key: number; id: string }>(`SELECT id AS key, uuid AS id FROM fields WHERE id IN (${chunk.map(() => "?").join(", ")})`, chunk);
    for (const r of rows) known.set(Number(r.key), r.id);
  }
  return known;
}
