import type { PassStore } from "../pass-store.js";
import { UNRESOLVED_VERSION } from "../evidence-repo.js";
import { epochMs, uuidBytesOf } from "../values.js";
import { sqliteStatement } from "./sqlite-sql.js";

// A record resolved for the first time loses its unresolved mark (see UNRESOLVED_VERSION);
// a later mark (evidence after the pass's input) is kept.
const RESOLVED = `changed_version = CASE WHEN changed_version = ${UNRESOLVED_VERSION} THEN 0 ELSE changed_version END`;
const RECORD = `UPDATE records SET data = ?, sha256 = ?, issues = ?, lineage = ?, ${RESOLVED} WHERE id = ?`;
const RECORD_TOUCHED = `UPDATE records SET data = ?, sha256 = ?, issues = ?, lineage = ?, updated_at = ?, ${RESOLVED} WHERE id = ?`;
const LINK_GONE = "DELETE FROM relationships WHERE source_record_id = ? AND name = ? AND target_record_id = ?";
const LINK_NEW = `INSERT INTO relationships (context_id, source_record_id, name, target_record_id, created_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT DO NOTHING`;
const EVALUATION = `INSERT INTO evaluations (uuid, context_id, rule_id, rule_version, outcome, trace, computed_at) VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (context_id, rule_id) DO UPDATE SET rule_version = excluded.rule_version, outcome = excluded.outcome, trace = excluded.trace,
    computed_at = excluded.computed_at`;
const EVALUATION_GONE = "DELETE FROM evaluations WHERE context_id = ? AND rule_id = ?";
const MARK = "UPDATE contexts SET passed_version = ?, pass_id = ?, pass_stamp = ? WHERE id = ?";

/**
 * A pass commit on SQLite: a prepared statement per row, run synchronously inside the
 * commit's transaction (no promise per statement: a record-heavy context writes thousands
 * of records in one pass). In-process a statement costs no round trip.
 */
export const sqlitePasses: PassStore = {
  async write(tx, w, now) {
    const at = epochMs(now);
    if (w.records.length > 0) {
      const plain = sqliteStatement(tx, RECORD);
      const touched = sqliteStatement(tx, RECORD_TOUCHED);
      for (const r of w.records) {
        const digest = Buffer.from(r.sha256, "hex");
        if (r.dataChanged) touched.run(r.data, digest, r.issues, r.lineage, at, r.key);
        else plain.run(r.data, digest, r.issues, r.lineage, r.key);
      }
    }
    if (w.linksGone.length > 0) {
      const gone = sqliteStatement(tx, LINK_GONE);
      for (const l of w.linksGone) gone.run(l.sourceKey, l.name, l.targetKey);
    }
    if (w.linksNew.length > 0) {
      const insert = sqliteStatement(tx, LINK_NEW);
      for (const l of w.linksNew) insert.run(l.contextKey, l.sourceKey, l.name, l.targetKey, at);
    }
    if (w.evaluations.length > 0) {
      const upsert = sqliteStatement(tx, EVALUATION);
      for (const e of w.evaluations) upsert.run(uuidBytesOf(e.id), e.contextKey, e.ruleKey, e.ruleVersion, e.outcome ? 1 : 0, e.trace, at);
    }
    if (w.evaluationsGone.length > 0) {
      const gone = sqliteStatement(tx, EVALUATION_GONE);
      for (const e of w.evaluationsGone) gone.run(e.contextKey, e.ruleKey);
    }
    if (w.marks.length > 0) {
      const mark = sqliteStatement(tx, MARK);
      for (const m of w.marks) mark.run(m.passedVersion, m.passId, m.stamp, m.contextKey);
    }
  },
};
