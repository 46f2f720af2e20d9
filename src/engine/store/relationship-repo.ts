import type { Sql } from "./sql.js";

/** A stored link joined with its target's model. */
export interface LinkRow {
  name: string;
  targetRecordId: string;
  targetModelId: string;
  targetModelName: string;
  createdAt: string;
}

const LINKS = `SELECT l.name, t.uuid AS "targetRecordId", m.uuid AS "targetModelId", m.name AS "targetModelName", l.created_at AS "createdAt"
  FROM relationships l JOIN records t ON t.id = l.target_record_id JOIN models m ON m.id = t.model_id
  WHERE l.source_record_id = ? AND t.deleted_at IS NULL`;
// Ties of a name and time fall to the target's id, as the API orders them.
const ORDER = "ORDER BY l.name, l.created_at, t.uuid";

/** Relationship links and remembered removals. */
export function createRelationshipRepo(db: Sql) {
  const d = db.dialect;
  return {
    /** The links of a record (by key), optionally of one relationship name. */
    linksOf(recordKey: number, name?: string): Promise<LinkRow[]> {
      return name === undefined ? db.all<LinkRow>(`${LINKS} ${ORDER}`, [recordKey]) : db.all<LinkRow>(`${LINKS} AND l.name = ? ${ORDER}`, [recordKey, name]);
    },
    /** Removes a link and remembers it (the pipeline must not make it again); false when there was none. */
    async removeLink(
      contextKey: number,
      sourceRecordKey: number,
      name: string,
      targetRecordKey: number,
      identities: [string | null, string | null],
    ): Promise<boolean> {
      const changed = await db.run("DELETE FROM relationships WHERE source_record_id = ? AND name = ? AND target_record_id = ?", [sourceRecordKey, name, targetRecordKey]);
      if (changed === 0) return false;
      await db.run(
        `INSERT INTO relationship_removals (context_id, source_record_id, name, target_record_id, source_identity, target_identity, removed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (source_record_id, name, target_record_id)
         DO UPDATE SET source_identity = excluded.source_identity, target_identity = excluded.target_identity, removed_at = excluded.removed_at`,
        [contextKey, sourceRecordKey, name, targetRecordKey, identities[0], identities[1], d.time(Date.now())],
      );
      return true;
    },
  };
}

/** The relationship repository type. */
export type RelationshipRepo = ReturnType<typeof createRelationshipRepo>;
