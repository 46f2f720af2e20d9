import { identityMapKey, sourceMapKey, type EvidenceLookups, type FoundRecord } from "../evidence-repo.js";

/**
 * The ingest's lookups on PostgreSQL: one query for every key of a call (arrays unnested
 * into a join), since each statement costs a network round trip.
 */
export const pgLookups: EvidenceLookups = {
  async findRecords(db, keys) {
    const found = new Map<string, FoundRecord>();
    if (keys.length === 0) return found;
    const rows = await db.all<{ key: number; id: string; c: number; m: number; k: string }>(
      `SELECT r.id AS key, r.uuid AS id, r.context_id AS c, r.model_id AS m, r.identity_key AS k FROM records r
       JOIN unnest(?::bigint[], ?::bigint[], ?::text[]) AS x(c, m, k) ON r.context_id = x.c AND r.model_id = x.m AND r.identity_key = x.k
       WHERE r.deleted_at IS NULL`,
      [keys.map((k) => k.contextKey), keys.map((k) => k.modelKey), keys.map((k) => k.identityKey)],
    );
    for (const r of rows) found.set(identityMapKey({ contextKey: Number(r.c), modelKey: Number(r.m), identityKey: r.k }), { key: Number(r.key), id: r.id });
    return found;
  },
  // The unique index on accepted contributions makes this one index probe per pair.
  async acceptedFromSources(db, keys) {
    const found = new Map<string, { id: string; key: number }>();
    if (keys.length === 0) return found;
    const rows = await db.all<{ key: number; id: string; r: number; s: string }>(
      `SELECT k.id AS key, k.uuid AS id, k.record_id AS r, k.source_id AS s FROM contributions k
       JOIN unnest(?::bigint[], ?::text[]) AS x(r, s) ON k.record_id = x.r AND k.source_id = x.s
       WHERE k.status = 'accepted'`,
      [keys.map((k) => k.recordKey), keys.map((k) => k.sourceId)],
    );
    for (const r of rows) found.set(sourceMapKey({ recordKey: Number(r.r), sourceId: r.s }), { key: Number(r.key), id: r.id });
    return found;
  },
};
