import type { CompiledModel } from "../models/model-types.js";
import { readThroughGroup, type Sql } from "./sql.js";

const MEMO = "pass-models";

/**
 * A model's compiled definition as the pipeline runs it, parsed once per change stamp
 * (version and update time) for the store's life: a definition that did not change is not
 * parsed again, and every reader of the same stamp gets the same object, so a pass can
 * tell by identity that a record was resolved with the definition it runs (see
 * GroupJournal) and the expression cache knows it without stringifying it.
 */
export function parsedModel(db: Sql, key: number, stamp: string, compiled: string): CompiledModel {
  let map = db.memo.get(MEMO) as Map<number, { stamp: string; value: CompiledModel }> | undefined;
  if (!map) db.memo.set(MEMO, (map = new Map()));
  let cached = map.get(key);
  if (cached?.stamp !== stamp) map.set(key, (cached = { stamp, value: JSON.parse(compiled) as CompiledModel }));
  return cached.value;
}

/** The SQL of a model's change stamp, as {@link parsedModel} keys it (alias `m`). */
export const MODEL_STAMP = "m.version || ':' || m.updated_at";

/**
 * The compiled definitions of live models, by key (models never activated are absent): for
 * an ingest that resolves the records it creates as it writes them.
 */
export async function compiledModels(db: Sql, keys: readonly number[]): Promise<Map<number, CompiledModel>> {
  if (keys.length === 0) return new Map();
  // Inside a SQLite write group nothing outside it changes a model, and every model write
  // forgets this (forgetGroupState): an import's batches ask for the same few each time.
  return readThroughGroup(db, "compiled-models", keys, async (wanted) => {
    const rows = await db.all<{ key: number; stamp: string; compiled: string }>(
      `SELECT m.id AS key, ${MODEL_STAMP} AS stamp, m.compiled FROM models m WHERE ${db.dialect.inKeys("m.id")} AND m.deleted_at IS NULL AND m.compiled IS NOT NULL`,
      [db.dialect.keyList(wanted)],
    );
    const out = new Map<number, CompiledModel>();
    for (const r of rows) out.set(Number(r.key), parsedModel(db, Number(r.key), r.stamp, r.compiled));
    return out;
  });
}
