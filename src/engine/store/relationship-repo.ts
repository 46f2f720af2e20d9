import type { Sql } from "./sql.js";

/** A stored link joined with its target's model. */
export interface LinkRow {
  name: string;
  targetRecordId: string;
  targetModelId: string;
  targetModelName: string;
  createdAt: string;
}

const LINKS = `SELECT l.name, l.target_record_id AS "targetRecordId", l.target_model_id AS "targetModelId", m.name AS "targetModelName", l.created_at AS "createdAt"
  FROM relationships l JOIN models m ON m.id = l.target_model_id JOIN records t ON t.id = l.target_record_id
  WHERE l.source_record_id = ? AND t.deleted_at IS NULL`;
const ORDER = "ORDER BY l.name, l.created_at, l.target_record_id";

/** Relationship links and remembered removals. */
export function createRelationshipRepo(db: Sql) {
  return {
    linksOf(recordId: string, name?: string): Promise<LinkRow[]> {
      return name === undefined ? db.all<LinkRow>(`${LINKS} ${ORDER}`, [recordId]) : db.all<LinkRow>(`${LINKS} AND l.name = ? ${ORDER}`, [recordId, name]);
    },
    async removeLink(
      contextId: string,
      workspace: string,
      sourceRecordId: string,
      name: string,
      targetRecordId: string,
      identities: [string | null, string | null],
    ): Promise<boolean> {
      const changed = await db.run("DELETE FROM relationships WHERE source_record_id = ? AND name = ? AND target_record_id = ?", [sourceRecordId, name, targetRecordId]);
      if (changed === 0) return false;
      await db.run(
        `INSERT INTO relationship_removals (workspace, context_id, source_record_id, name, target_record_id, source_identity, target_identity, removed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (source_record_id, name, target_record_id)
         DO UPDATE SET source_identity = excluded.source_identity, target_identity = excluded.target_identity, removed_at = excluded.removed_at`,
        [workspace, contextId, sourceRecordId, name, targetRecordId, identities[0], identities[1], new Date().toISOString()],
      );
      return true;
    },
  };
}

/** The relationship repository type. */
export type RelationshipRepo = ReturnType<typeof createRelationshipRepo>;
