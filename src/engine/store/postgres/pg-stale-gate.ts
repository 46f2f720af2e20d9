// The gate between the COMMITs of writers of evidence and the pipeline's claims, which lets
// a COMMIT leave alone the contexts already stale (pg-stale.ts).

/**
 * A quiet context: stale, so no pass is in flight (a claim turns it computing), and its
 * evidence version above the one its last pass covered, so a record stamped with that
 * version (STAMP) is read by its next pass (pass-load.ts: changed_version > passed_version).
 */
export const QUIET = "(freshness = 'stale' AND evidence_version > passed_version)";

/**
 * The namespace ("DDS2") of the advisory locks that gate claims against the COMMITs of
 * writers of evidence: the two-key lock (STALE_GATE, the context's key folded to 32 bits).
 * A key folded like another's (2^32 apart) only makes one wait or skip for the other.
 */
export const STALE_GATE = 0x44445332;
const gateOf = (key: string) => `${STALE_GATE}, ((${key}) % 4294967296 - 2147483648)::int`;

/**
 * Why a COMMIT may leave a quiet context alone (no row lock, no new row version: the
 * writers of an interleaved feed, every bulk touching every context, then no longer queue
 * on the contexts' rows at each commit), and no accepted contribution is missed:
 *
 * 1. The writer's COMMIT message runs GATE first: a shared lock on each context's gate,
 *    which writers share with each other; a claim takes a context only if it gets the
 *    gate exclusively at once (claimGate: pg_try_advisory_xact_lock, held to the end of
 *    the claim's transaction), so while any COMMIT holds a context's gate no claim takes it,
 *    and a COMMIT whose GATE finds a claim in flight waits until that claim has committed.
 *    Claims never wait (SKIP LOCKED, a try lock): no cycle of waits goes through them.
 * 2. The mark runs next: READ COMMITTED gives it a snapshot taken after GATE got every
 *    gate, so it sees every claim of these contexts committed (computing) and none can
 *    follow until this COMMIT ends. It locks and bumps every context that is not quiet,
 *    exactly as before: a pass in flight sees the version moved and leaves it stale. A
 *    context it sees quiet stays quiet until the COMMIT ends: nothing but a claim ends
 *    `stale` (a pass commits only a claimed context; a release turns computing into stale;
 *    a status change waits for the writer's FOR KEY SHARE), and nothing lowers the version,
 *    so no pass reads it before this writer's rows are committed. A context that was not
 *    quiet in the snapshot but is when its row lock is granted (a pass committed it stale,
 *    a release, another writer's bump) is rechecked on its newest row (READ COMMITTED's
 *    recheck of a locking read): quiet, it is left alone for the same reason.
 * 3. STAMP then gives each record its context's version, which for a quiet context is
 *    above the version its last pass covered (QUIET). The next claim comes after this
 *    COMMIT (the gate); its pass reads in a snapshot taken after the claim, which holds
 *    this writer's rows, and reads them as changed. The context read right after the
 *    writer's answer is stale (or computing under that claim): never resolved without them.
 *
 * Only a writer that holds the contexts leaves them alone (`held`: a writer of evidence,
 * whose reads locked every context it writes into FOR KEY SHARE at least, from before its
 * COMMIT to its end). That is what a write group's claims of the contexts it wrote into
 * rely on instead of the gate (ClaimScope.held): the group holds them FOR UPDATE, which
 * conflicts with FOR KEY SHARE, so no such COMMIT on them is under way while it claims,
 * and one that comes after the group sees what the group committed. Other marks (a
 * definition changed, a rule) take no gate and bump every context, as before.
 *
 * The gates are advisory locks, entries of PostgreSQL's shared lock table: a COMMIT gates
 * at most GATE_LIMIT contexts, and one touching more marks them all as before (no gate).
 */
export const GATE = `SELECT count(*) AS gated FROM (SELECT pg_advisory_xact_lock_shared(${gateOf("k")}) FROM unnest(?::bigint[]) AS k ORDER BY k) g`;

/** The claim's side of the gate (see GATE): true when no COMMIT holds the gate of the context `key` names. */
export const claimGate = (key: string) => `pg_try_advisory_xact_lock(${gateOf(key)})`;

/** Contexts one COMMIT may gate: the lock table holds max_locks_per_transaction (64 by default) per connection. */
export const GATE_LIMIT = 64;
