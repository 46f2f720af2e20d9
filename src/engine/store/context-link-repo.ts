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
 * the removals still in force (the link is not there, both records are), oldest first.
 */
export function createContextLinkRepo(db: Sql) {
  return {
    linksOfContext(contextId: string): Promise<ContextLinkRow[]> {
      return db.all<ContextLinkRow>(
        `SELECT l.source_record_id AS "sourceRecordId", l.name AS "relationshipName", l.target_record_id AS "targetRecordId", l.created_at AS "createdAt", NULL AS "removedAt"
         FROM relationships l JOIN records s ON s.id = l.source_record_id JOIN records t ON t.id = l.target_record_id
         WHERE l.context_id = ? AND s.deleted_at IS NULL AND t.deleted_at IS NULL
         UNION ALL
         SELECT r.source_record_id, r.name, r.target_record_id, NULL, r.removed_at
         FROM relationship_removals r JOIN records s ON s.id = r.source_record_id JOIN records t ON t.id = r.target_record_id
         WHERE r.context_id = ? AND s.deleted_at IS NULL AND t.deleted_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM relationships l WHERE l.source_record_id = r.source_record_id AND l.name = r.name AND l.target_record_id = r.target_record_id)
         ORDER BY 1, 2, 3`,
        [contextId, contextId],
      );
    },
  };
}
