import type { Sql } from "../sql.js";
import { PgTx } from "./pg-sql.js";
import { GATE, GATE_LIMIT, QUIET } from "./pg-stale-gate.js";

/** A context that turned from resolved to stale. */
export interface TurnedStale {
  contextId: string;
  workspace: string;
}

/**
 * What a write group knows of the contexts its calls marked stale: a context bumped by an
 * earlier call of the same group (one transaction) and still stale needs no second bump.
 */
export interface StaleMarks {
  readonly bumped: ReadonlySet<number>;
  /** Records the contexts the running call bumped, with their evidence versions now. */
  bump(rows: readonly { key: number; version: number }[]): void;
}

// One statement for every context a write touched (an interleaved import batch touches up
// to a hundred): the CTE locks them in key order, as every writer does (no lock cycles),
// and reads each one's freshness under the lock, so `turned` says which were resolved.
// FOR NO KEY UPDATE: other writers of evidence into these contexts hold them FOR KEY SHARE
// until they commit, which must not keep this mark waiting (nor theirs wait for this one).
// The second array lists contexts this transaction has bumped already: while still stale
// they are left alone. A stale context has no pass in flight (a claim makes it computing
// and reads its version then), so a further bump would only weigh in the claim order, and
// every row version a transaction adds to a context costs the next statements that read it.
// stale_since is the database's now(): the statement may run at COMMIT, its parameters
// integer arrays written into its text (PgTx.atCommit). `quiet` (the mark sent with a
// COMMIT behind its gate, see pg-stale-gate.ts) leaves alone, unlocked, every context already quiet.
const markStale = (quiet: boolean) => `WITH locked AS (
    SELECT id, freshness FROM contexts
    WHERE id = ANY(?::bigint[]) AND deleted_at IS NULL AND status != 'archived'${quiet ? ` AND NOT ${QUIET}` : ""}
    ORDER BY id FOR NO KEY UPDATE
  )
  UPDATE contexts c SET evidence_version = c.evidence_version + 1,
    freshness = CASE WHEN c.freshness = 'computing' THEN 'computing' ELSE 'stale' END,
    stale_since = CASE WHEN l.freshness = 'resolved' THEN now() ELSE c.stale_since END
  FROM locked l WHERE c.id = l.id AND NOT (l.freshness = 'stale' AND l.id = ANY(?::bigint[]))
  RETURNING c.id AS key, c.uuid AS "contextId", (SELECT name FROM workspaces w WHERE w.id = c.workspace_id) AS workspace,
    l.freshness = 'resolved' AS turned, c.evidence_version AS version`;

const MARK_STALE = markStale(false);
const MARK_STALE_UNLESS_QUIET = markStale(true);

/** Records whose evidence changed get their context's evidence version (see Store.markStale). */
export const STAMP = `UPDATE records r SET changed_version = c.evidence_version FROM contexts c
  WHERE r.id = ANY(?::bigint[]) AND c.id = r.context_id`;

/**
 * Evidence arrived (PostgreSQL's way of Store.markStale): bumps each context's
 * version, resolved → stale, computing stays computing (its pass will notice the version),
 * and wakes the workers. Returns the contexts that turned stale. In a write group, pass
 * the group's marks (see MARK_STALE).
 */
export async function pgMarkStale(db: Sql, contextKeys: Iterable<number>, group?: StaleMarks, recordKeys: Iterable<number> = []): Promise<TurnedStale[]> {
  const keys = [...new Set(contextKeys)].sort((a, b) => a - b);
  if (keys.length === 0) return [];
  const records = [...new Set(recordKeys)];
  // After the bump, on the same connection: each record gets its context's new version.
  const stamp = () => (records.length === 0 ? undefined : db.run(STAMP, [records]));
  const done = group ? keys.filter((k) => group.bumped.has(k)) : [];
  // Every one bumped by an earlier call of the group, whose lock on it the group still
  // holds: each is stale still (a claim skips locked contexts) or was computing already,
  // whose pass will see the version moved. Nothing to do, and no round trip.
  if (done.length === keys.length) {
    await stamp();
    db.signal("work");
    return [];
  }
  const marking = db.all<TurnedStale & { key: number; turned: boolean; version: number }>(MARK_STALE, [keys, done]);
  const [rows] = await Promise.all([marking, stamp()]);
  group?.bump(rows.map((r) => ({ key: Number(r.key), version: Number(r.version) })));
  db.signal("work");
  return rows.filter((r) => r.turned).map((r) => ({ contextId: r.contextId, workspace: r.workspace }));
}

/**
 * Marks the contexts stale (as pgMarkStale, without telling which turned) as the last
 * statements of `db`'s transaction, sent with its COMMIT (PgTx.atCommit): their rows are
 * locked only from then until the commit is done, so writers of evidence into the same
 * contexts (an interleaved feed: every bulk touches them all) wait on each other for no
 * more than that, whatever else their transactions do or however slowly their nodes run;
 * with `held` (the transaction holds the contexts, see Store.markStaleAtCommit) the rows
 * of contexts already quiet (stale, waiting for a claim) are not locked at all (see
 * pg-stale-gate.ts). Readers see the evidence and the mark together. False when `db`
 * cannot defer (a savepoint, a write group's call): nothing was done, mark now with pgMarkStale.
 */
export function pgMarkStaleAtCommit(db: Sql, contextKeys: Iterable<number>, recordKeys: Iterable<number> = [], held = false): boolean {
  if (!(db instanceof PgTx) || !db.defers) return false;
  const keys = [...new Set(contextKeys)].sort((a, b) => a - b);
  const records = [...new Set(recordKeys)];
  if (keys.length > 0) {
    // Behind the gate the mark leaves quiet contexts alone (see pg-stale-gate.ts), for a
    // writer that holds the contexts (FOR KEY SHARE at least), which a write group's
    // claims of its own contexts rely on in place of the gate.
    const gated = held && keys.length <= GATE_LIMIT;
    if (gated) db.atCommit(GATE, [keys]);
    db.atCommit(gated ? MARK_STALE_UNLESS_QUIET : MARK_STALE, [keys, []]);
  }
  // After the bump: each record gets its context's new version.
  if (records.length > 0) db.atCommit(STAMP, [records]);
  if (keys.length > 0) db.signal("work");
  return true;
}
