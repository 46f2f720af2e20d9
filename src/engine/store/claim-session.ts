import type { Sql } from "./sql.js";

/**
 * Where a store binds pipeline claims to this process's database session (PostgreSQL): a
 * worker's claims stand while the session holding its mark lives, so when the process dies
 * (SIGKILL, OOM, a lost host) its session ends, the mark goes with it, and another node
 * takes the claims over at once instead of when their lease runs out. The lease stays, for
 * a process that lives but stalls (a frozen VM keeps its session), and the claim token
 * still fences a late commit. SQLite has none: claims there are lease-bound only.
 */
export interface ClaimSession {
  /**
   * Makes sure this process's session holds `worker`'s mark before it claims; resolves
   * at once when it does already. While the session is down it resolves without one:
   * claims made meanwhile may be taken over, and their late commits are fenced.
   */
  hold(worker: string): Promise<void>;
  /** `worker` claims no more (its pipeline stopped): its mark is given back. */
  letGo(worker: string): Promise<void>;
}

const MEMO = "claim-session";

/** Records the store's claim session in its executor's memo (shared by every transaction of the store). */
export function setClaimSession(db: Sql, session: ClaimSession): void {
  db.memo.set(MEMO, session);
}

/** The store's claim session, if it binds claims to sessions (PostgreSQL). */
export function claimSessionOf(db: Sql): ClaimSession | undefined {
  return db.memo.get(MEMO) as ClaimSession | undefined;
}
