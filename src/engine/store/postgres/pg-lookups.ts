import { identityMapKey, sourceMapKey, type EvidenceLookups } from "../evidence-repo.js";

/**
 * The ingest's lookups on PostgreSQL: one query for every key of a call (arrays unnested
 * into a join), since each statement costs a network round trip.
 */
export const pgLookups: EvidenceLookups = {
  async findRecordIds(db, keys) {
    const found = new Map<string, string>();
    if (keys.length === 0) return found;
    const rows = await db.all<{ id: string; c: string; m: string; k: string }>(
      `SELECT r.id, r.context_id AS c, r.model_id AS m, r.identity_key AS k FROM records r
       JOIN unnest(?::text[], ?::text[], ?::text[]) AS x(c, m, k) ON r.context_id = x.c AND r.model_id = x.m AND r.identity_key = x.k
       WHERE r.deleted_at IS NULL`,
      [keys.map((k) => k.contextId), keys.map((k) => k.modelId), keys.map((k) => k.identityKey)],
    );
    for (const r of rows) found.set(identityMapKey({ contextId: r.c, modelId: r.m, identityKey: r.k }), r.id);
    return found;
  },
  // The unique index on accepted contributions makes this one index probe per pair.
  async acceptedFromSources(db, keys) {
    const found = new Map<string, string>();
    if (keys.length === 0) return found;
    const rows = await db.all<{ id: string; r: string; s: string }>(
      `SELECT k.id, k.record_id AS r, k.source_id AS s FROM contributions k
       JOIN unnest(?::text[], ?::text[]) AS x(r, s) ON k.record_id = x.r AND k.source_id = x.s
       WHERE k.status = 'accepted'`,
      [keys.map((k) => k.recordId), keys.map((k) => k.sourceId)],
    );
    for (const r of rows) found.set(sourceMapKey({ recordId: r.r, sourceId: r.s }), r.id);
    return found;
  },
};
