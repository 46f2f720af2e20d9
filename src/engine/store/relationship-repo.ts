import type { Store } from "./db.js";
import { statements } from "./statements.js";

/** A stored link joined with its target's model. */
export interface LinkRow {
  name: string;
  targetRecordId: string;
  targetModelId: string;
  targetModelName: string;
  createdAt: string;
}

/** Relationship links and remembered removals. */
export function createRelationshipRepo(store: Store) {
  const q = statements(store.raw);
  return {
    linksOf(recordId: string, name?: string): LinkRow[] {
      return q(
        `SELECT l.name, l.target_record_id AS targetRecordId, l.target_model_id AS targetModelId, m.name AS targetModelName, l.created_at AS createdAt
         FROM relationships l JOIN models m ON m.id = l.target_model_id JOIN records t ON t.id = l.target_record_id
         WHERE l.source_record_id = ? AND (? IS NULL OR l.name = ?) AND t.deleted_at IS NULL
         ORDER BY l.name, l.created_at, l.target_record_id`,
      ).all(recordId, name ?? null, name ?? null) as LinkRow[];
    },
    removeLink(contextId: string, workspace: string, sourceRecordId: string, name: string, targetRecordId: string, identities: [string | null, string | null]): boolean {
      const r = q("DELETE FROM relationships WHERE source_record_id = ? AND name = ? AND target_record_id = ?").run(sourceRecordId, name, targetRecordId);
      if (r.changes === 0) return false;
      q(
        `INSERT INTO relationship_removals (workspace, context_id, source_record_id, name, target_record_id, source_identity, target_identity, removed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET source_identity = excluded.source_identity, target_identity = excluded.target_identity, removed_at = excluded.removed_at`,
      ).run(workspace, contextId, sourceRecordId, name, targetRecordId, identities[0], identities[1], new Date().toISOString());
      return true;
    },
  };
}

/** The relationship repository type. */
export type RelationshipRepo = ReturnType<typeof createRelationshipRepo>;
