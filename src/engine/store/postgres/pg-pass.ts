import { UNRESOLVED_VERSION } from "../evidence-repo.js";
import type { PassStore } from "../pass-store.js";
import type { Sql } from "../sql.js";
import { held } from "./pg-ingest.js";

/**
 * Rows per statement: a record-heavy commit updates thousands of records with their lineage.
 * (Flags travel as integers: the driver types a JS boolean array as one boolean.)
 */
const CHUNK = 1000;

// A record resolved for the first time loses its unresolved mark (see UNRESOLVED_VERSION).
const RECORDS = `UPDATE records AS r SET data = CAST(x.data AS json), sha256 = decode(x.sha, 'hex'), issues = CAST(x.issues AS json),
    lineage = CAST(x.lineage AS json), updated_at = CASE WHEN x.touched <> 0 THEN CAST(? AS timestamptz) ELSE r.updated_at END,
    changed_version = CASE WHEN r.changed_version = ${UNRESOLVED_VERSION} THEN 0 ELSE r.changed_version END
  FROM unnest(CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS integer[]))
    AS x(id, data, sha, issues, lineage, touched)
  WHERE r.id = x.id`;
const LINKS_GONE = `DELETE FROM relationships l USING unnest(CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS bigint[])) AS x(s, n, t)
  WHERE l.source_record_id = x.s AND l.name = x.n AND l.target_record_id = x.t`;
const LINKS_NEW = `INSERT INTO relationships (context_id, source_record_id, name, target_record_id, created_at)
  SELECT x.c, x.s, x.n, x.t, CAST(? AS timestamptz) FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS bigint[])) AS x(c, s, n, t)
  ON CONFLICT DO NOTHING`;
const EVALUATIONS = `INSERT INTO evaluations (uuid, context_id, rule_id, rule_version, outcome, trace, computed_at)
  SELECT x.u, x.c, x.r, x.v, x.o <> 0, CAST(x.t AS json), CAST(? AS timestamptz)
  FROM unnest(CAST(? AS uuid[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS integer[]), CAST(? AS integer[]), CAST(? AS text[])) AS x(u, c, r, v, o, t)
  ON CONFLICT (context_id, rule_id) DO UPDATE SET rule_version = excluded.rule_version, outcome = excluded.outcome, trace = excluded.trace,
    computed_at = excluded.computed_at`;
const MARKS = `UPDATE contexts AS c SET passed_version = x.v, pass_id = x.p, pass_stamp = x.s
  FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS text[])) AS x(id, v, p, s) WHERE c.id = x.id`;
const EVALUATIONS_GONE = `DELETE FROM evaluations e USING unnest(CAST(? AS bigint[]), CAST(? AS bigint[])) AS x(c, r)
  WHERE e.context_id = x.c AND e.rule_id = x.r`;

function chunks<T>(rows: readonly T[], fn: (chunk: readonly T[]) => Promise<number>): Promise<number>[] {
  const out: Promise<number>[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(fn(rows.slice(i, i + CHUNK)));
  return out;
}

/**
 * A pass commit on PostgreSQL: one statement per kind of change for every row of the
 * commit (a batch of passes), arrays unnested into the rows, all issued together so the
 * driver pipelines them on the transaction's connection: one round trip whatever the
 * number of passes, records, links and evaluations.
 */
export const pgPasses: PassStore = {
  async write(tx: Sql, w, now) {
    // In a write group, records it holds still are copied resolved instead of updated.
    const records = held(tx)?.resolve(w.records, now) ?? w.records;
    await Promise.all([
      ...chunks(records, (rs) =>
        tx.run(RECORDS, [
          now,
          rs.map((r) => r.key),
          rs.map((r) => r.data),
          rs.map((r) => r.sha256),
          rs.map((r) => r.issues),
          rs.map((r) => r.lineage),
          rs.map((r) => (r.dataChanged ? 1 : 0)),
        ]),
      ),
      ...chunks(w.linksGone, (ls) => tx.run(LINKS_GONE, [ls.map((l) => l.sourceKey), ls.map((l) => l.name), ls.map((l) => l.targetKey)])),
      ...chunks(w.linksNew, (ls) => tx.run(LINKS_NEW, [now, ls.map((l) => l.contextKey), ls.map((l) => l.sourceKey), ls.map((l) => l.name), ls.map((l) => l.targetKey)])),
      ...chunks(w.evaluations, (es) =>
        tx.run(EVALUATIONS, [
          now,
          es.map((e) => e.id),
          es.map((e) => e.contextKey),
          es.map((e) => e.ruleKey),
          es.map((e) => e.ruleVersion),
          es.map((e) => (e.outcome ? 1 : 0)),
          es.map((e) => e.trace),
        ]),
      ),
      ...chunks(w.marks, (ms) => tx.run(MARKS, [ms.map((m) => m.contextKey), ms.map((m) => m.passedVersion), ms.map((m) => m.passId), ms.map((m) => m.stamp)])),
      ...(w.evaluationsGone.length > 0 ? [tx.run(EVALUATIONS_GONE, [w.evaluationsGone.map((e) => e.contextKey), w.evaluationsGone.map((e) => e.ruleKey)])] : []),
    ]);
  },
};
