import { sqlStateOf } from "../db-errors.js";
import { UNRESOLVED_VERSION } from "../evidence-repo.js";
import { resolvedContextsSql, staleContextsSql } from "../pass-freshness.js";
import type { PassStore, PassWrites, RecordWrite } from "../pass-store.js";
import type { Sql } from "../sql.js";
import { held } from "./pg-ingest.js";
import { postgresDialect } from "./pg-dialect.js";
import { PgTx, type DeferredParam } from "./pg-sql.js";

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
/**
 * The fence of a late commit (see LateCommit), in its COMMIT's message after the rows it
 * writes: locks the commit's contexts in key order (as every writer does) and, on their newest rows
 * (READ COMMITTED rechecks a locking read after a wait), counts those whose claim still
 * stands and, for a context to resolve, whose evidence version is still its pass's. A count
 * short of the commit's divides by zero: the transaction fails, nothing of it is kept (the
 * rows written before it included).
 */
const LATE_FENCE = `SELECT 1 / (count(*) = cardinality(CAST(? AS bigint[])))::int AS fenced FROM (
    SELECT c.id FROM contexts c
    JOIN unnest(CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS text[])) AS x(id, token, v, resolve, w) ON c.id = x.id
    WHERE c.claimed_by = x.w AND c.claim_token = x.token AND (x.resolve = 0 OR c.evidence_version = x.v)
    ORDER BY c.id FOR NO KEY UPDATE OF c
  ) fenced`;
/** The SQLSTATE the late fence fails with: it divides by zero when a claim no longer stands. */
const DIVISION_BY_ZERO = "22012";
/** The SQLSTATE of a lock not granted within lock_timeout. */
const LOCK_NOT_AVAILABLE = "55P03";
/**
 * How long a late commit waits for any lock (its first statement). Its record writes come
 * before its fence, so it locks records, then contexts, where a writer of evidence locks
 * contexts (its mark), then records (its stamp): a writer stamping a record this commit
 * writes, with a context of it marked already, and this commit's fence waiting for that
 * context, wait on each other. The commit gives up first, long before the writer's
 * deadlock check (deadlock_timeout, 1 s by default), and commits again the locked way,
 * contexts first; so does a commit whose fence waits longer for another reason (a write
 * group holding its contexts).
 */
const LATE_LOCK_TIMEOUT = "SET LOCAL lock_timeout = '200ms'";

const EVALUATIONS_GONE = `DELETE FROM evaluations e USING unnest(CAST(? AS bigint[]), CAST(? AS bigint[])) AS x(c, r)
  WHERE e.context_id = x.c AND e.rule_id = x.r`;

/** One statement of a commit and its parameters (arrays of integers or texts, or a text: what a deferred statement can carry too). */
type Statement = [text: string, params: DeferredParam[]];

/** `rows` in chunks of CHUNK, each one statement. */
function chunked<T>(rows: readonly T[], statement: (chunk: readonly T[]) => Statement): Statement[] {
  const out: Statement[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(statement(rows.slice(i, i + CHUNK)));
  return out;
}

/** The statements that mark a commit's contexts passed (rows of `contexts`: see writeLate for their place). */
function markStatements(w: PassWrites): Statement[] {
  return chunked(w.marks, (ms): Statement => [MARKS, [ms.map((m) => m.contextKey), ms.map((m) => m.passedVersion), ms.map((m) => m.passId), ms.map((m) => m.stamp)]]);
}

/** The statements that write a commit's records, links and evaluations, `records` in place of the writes' own (see write). */
function rowStatements(w: PassWrites, records: readonly RecordWrite[], now: string): Statement[] {
  return [
    ...chunked(records, (rs): Statement => [
      RECORDS,
      [now, rs.map((r) => r.key), rs.map((r) => r.data), rs.map((r) => r.sha256), rs.map((r) => r.issues), rs.map((r) => r.lineage), rs.map((r) => (r.dataChanged ? 1 : 0))],
    ]),
    ...chunked(w.linksGone, (ls): Statement => [LINKS_GONE, [ls.map((l) => l.sourceKey), ls.map((l) => l.name), ls.map((l) => l.targetKey)]]),
    ...chunked(w.linksNew, (ls): Statement => [LINKS_NEW, [now, ls.map((l) => l.contextKey), ls.map((l) => l.sourceKey), ls.map((l) => l.name), ls.map((l) => l.targetKey)]]),
    ...chunked(w.evaluations, (es): Statement => [
      EVALUATIONS,
      [now, es.map((e) => e.id), es.map((e) => e.contextKey), es.map((e) => e.ruleKey), es.map((e) => e.ruleVersion), es.map((e) => (e.outcome ? 1 : 0)), es.map((e) => e.trace)],
    ]),
    ...(w.evaluationsGone.length > 0 ? [[EVALUATIONS_GONE, [w.evaluationsGone.map((e) => e.contextKey), w.evaluationsGone.map((e) => e.ruleKey)]] as Statement] : []),
  ];
}

/**
 * A pass commit on PostgreSQL: one statement per kind of change for every row of the
 * commit (a batch of passes), arrays unnested into the rows, all issued together so the
 * driver pipelines them on the transaction's connection: one round trip whatever the
 * number of passes, records, links and evaluations. A transaction of its own sends them
 * with its COMMIT instead, behind the late fence (writeLate).
 */
export const pgPasses: PassStore = {
  writeLate(tx) {
    if (!(tx instanceof PgTx) || !tx.defers) return undefined;
    // Nothing is sent before the COMMIT, and the contexts are locked last: the rows first
    // (records, links, evaluations), then the fence, the marks and the freshness. Writers
    // of evidence into these contexts (an interleaved feed's every bulk marks them all)
    // then wait for the fence and what follows it, not for the update of every record the
    // passes resolved (up to a quarter of a second for ten contexts of 600 new records).
    // A writer's mark and stamp lock in the other order: see LATE_LOCK_TIMEOUT.
    return {
      finish(w, claims, now) {
        const keys = claims.map((c) => c.contextKey);
        tx.atCommit(LATE_LOCK_TIMEOUT, []);
        for (const [text, params] of rowStatements(w, w.records, now)) tx.atCommit(text, params);
        tx.atCommit(LATE_FENCE, [keys, keys, claims.map((c) => c.token), claims.map((c) => c.evidenceVersion), claims.map((c) => (c.resolve ? 1 : 0)), claims.map((c) => c.worker)]);
        for (const [text, params] of markStatements(w)) tx.atCommit(text, params);
        const resolved = claims.filter((c) => c.resolve).map((c) => c.contextKey);
        const stale = claims.filter((c) => !c.resolve).map((c) => c.contextKey);
        if (resolved.length > 0) tx.atCommit(resolvedContextsSql(postgresDialect), [now, resolved]);
        if (stale.length > 0) tx.atCommit(staleContextsSql(postgresDialect), [stale]);
      },
    };
  },
  // A lock not granted in time reaches the caller as the pool's 503 (sqlStateOf reads its cause).
  isFenceFailure: (err) => [DIVISION_BY_ZERO, LOCK_NOT_AVAILABLE].includes(sqlStateOf(err)),
  async write(tx: Sql, w, now) {
    // In a write group, records it holds still are copied resolved instead of updated.
    const records = held(tx)?.resolve(w.records, now) ?? w.records;
    await Promise.all([...rowStatements(w, records, now), ...markStatements(w)].map(([text, params]) => tx.run(text, params)));
  },
};
