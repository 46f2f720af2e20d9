import { identityMapKey, sourceMapKey, type EvidenceLookups } from "../evidence-repo.js";

/**
 * The ingest's lookups on SQLite: one indexed statement per key, which costs no round
 * trip in-process and stays on the indexes' fast paths.
 */
export const sqliteLookups: EvidenceLookups = {
  // Issued together and awaited once: in a transaction each statement runs as it is
  // issued, so this is a plain loop without an await per key.
  async findRecordIds(db, keys) {
    const rows = await Promise.all(
      keys.map((k) => db.get<{ id: string }>("SELECT id FROM records WHERE context_id = ? AND model_id = ? AND identity_key = ? AND deleted_at IS NULL", [k.contextId, k.modelId, k.identityKey])),
    );
    const found = new Map<string, string>();
    rows.forEach((row, i) => row && found.set(identityMapKey(keys[i]), row.id));
    return found;
  },
  /**
   * The accepted contribution of a source to a record is always the last one inserted
   * for that pair (each insert supersedes the one before), so the index is read backwards
   * by rowid for one entry instead of checking the pair's whole history for its status
   * (which grew linearly: 2.5 s of a 1M-line import).
   */
  async acceptedFromSources(db, keys) {
    const rows = await Promise.all(
      keys.map((k) =>
        db.get<{ id: string }>(
          `SELECT id FROM (SELECT id, status FROM contributions WHERE record_id = ? AND source_id = ? ORDER BY rowid DESC LIMIT 1)
           WHERE status = 'accepted'`,
          [k.recordId, k.sourceId],
        ),
      ),
    );
    const found = new Map<string, string>();
    rows.forEach((row, i) => row && found.set(sourceMapKey(keys[i]), row.id));
    return found;
  },
};
