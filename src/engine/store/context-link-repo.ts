import type { Sql } from "./sql.js";

/** A link of a context's graph, current or remembered as removed. */
export interface ContextLinkRow {
  sourceRecordId: string;
  relationshipName: string;
  targetRecordId: string;
  createdAt: string | null;
  removedAt: string | null;
}

/**
 * The whole link graph of one context: the current links between its live records, then
 * the removals still in force (the link is not there, both records are), by source,
 * name and target.
 */
export function createContextLinkRepo(db: Sql) {
  const d = db.dialect;
  return {
    async linksOfContext(contextId: string): Promise<ContextLinkRow[]> {
      const ctx = await db.get<{ key: number }>("SELECT id AS key FROM contexts WHERE uuid = ?", [d.uuid(contextId)]);
      if (!ctx) return [];
      const rows = await db.all<ContextLinkRow>(
        `SELECT s.uuid AS "sourceRecordId", l.name AS "relationshipName", t.uuid AS "targetRecordId", l.created_at AS "createdAt", NULL AS "removedAt"
         FROM relationships l JOIN records s ON s.id = l.source_record_id JOIN records t ON t.id = l.target_record_id
         WHERE l.context_id = ? AND s.deleted_at IS NULL AND t.deleted_at IS NULL`,
        [ctx.key],
      );
      const removed = await db.all<ContextLinkRow>(
        `SELECT s.uuid AS "sourceRecordId", r.name AS "relationshipName", t.uuid AS "targetRecordId", NULL AS "createdAt", r.removed_at AS "removedAt"
         FROM relationship_removals r JOIN records s ON s.id = r.source_record_id JOIN records t ON t.id = r.target_record_id
         WHERE r.context_id = ? AND s.deleted_at IS NULL AND t.deleted_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM relationships l WHERE l.source_record_id = r.source_record_id AND l.name = r.name AND l.target_record_id = r.target_record_id)`,
        [ctx.key],
      );
      // Ordered by the ids the API shows (source, name, target), as before the store kept keys.
      const by = (a: ContextLinkRow, b: ContextLinkRow) =>
        cmp(a.sourceRecordId, b.sourceRecordId) || cmp(a.relationshipName, b.relationshipName) || cmp(a.targetRecordId, b.targetRecordId);
      return [...rows, ...removed].sort(by);
    },
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
