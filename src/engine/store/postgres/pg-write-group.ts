import type postgres from "postgres";
import type { WriteGroup } from "../../../contract/service.js";
import { errors } from "../../../contract/errors.js";
import type { Sql } from "../sql.js";
import type { StaleMarks } from "./pg-stale.js";
import type { PgPool } from "./pg-pool.js";
import { NOTIFY, PgTx, query, type Announcement, type CommitSink, type GroupSlot, type OpenGroup, type Params } from "./pg-sql.js";

/** What a group does once it has committed (the store's upkeep after a bulk load). */
export type AfterCommit = () => void;

/** The store's write groups: the open one (for the root executor and pgMarkStale), and how to open one. */
export interface PgWriteGroups extends GroupSlot {
  readonly marks: StaleMarks | undefined;
  open(memo: Map<string, unknown>): WriteGroup;
}

/**
 * Write groups on PostgreSQL: one transaction on a reserved connection, in which every
 * engine transaction (a keyed batch of an import, say) is a savepoint, so a failing call
 * still undoes only itself. A local import commits a few hundred milliseconds of batches
 * at once instead of paying BEGIN, a NOTIFY, COMMIT (and a WAL flush) per batch.
 *
 * Kill-safety: nothing of a group is visible or durable before `commit` resolves; a process
 * killed meanwhile drops its connection and PostgreSQL rolls the whole group back, locks
 * and idempotency keys included. The import moves its checkpoint only after the commit
 * resolved, so it never points past a line that was not committed.
 *
 * While a group is open, the store's reads go to the group's connection too (they must see
 * its writes, as on SQLite's one connection), and its transactions become the group's
 * savepoints, one after another. Row locks taken in a group (contexts being written) are
 * held until it commits: another node writing to the same contexts waits that long.
 */
export function createPgWriteGroups(pool: PgPool, sink: CommitSink, afterCommit?: AfterCommit): PgWriteGroups {
  let current: PgGroup | undefined;
  return {
    get current() {
      return current;
    },
    get marks() {
      return current;
    },
    open(memo) {
      if (current) throw new Error("a write group is already open");
      const group = new PgGroup(pool, memo);
      current = group;
      const close = async (how: "COMMIT" | "ROLLBACK") => {
        if (current === group) current = undefined;
        const announced = await group.end(how);
        sink.committed(announced);
        if (how === "COMMIT") afterCommit?.();
      };
      return {
        commit: () => close("COMMIT"),
        rollback: () => close("ROLLBACK"),
      };
    },
  };
}

/** The driver's connection object, as a query's `onexecute` hands it over (not in its types). */
interface RawConnection {
  onclose?: (err: Error) => void;
}

class PgGroup implements OpenGroup, StaleMarks {
  /** Contexts whose evidence version calls of this group have bumped (see pgMarkStale). */
  readonly bumped = new Set<number>();
  /** Those the running call bumped: the group's only once its savepoint is released. */
  private callBumped = new Set<number>();
  /** The reserved connection, once BEGIN has run on it. */
  private readonly conn: Promise<postgres.ReservedSql>;
  /** Calls run one after another: each waits for the previous one's savepoint to end. */
  private chain: Promise<unknown>;
  private readonly announced = new Set<Announcement>();
  /** Set when the group's transaction can no longer commit (a savepoint could not be undone). */
  private broken: unknown;
  /**
   * Set, synchronously, when the connection closes. Nothing is sent on it after that: the
   * driver would write to a closed socket, or to a new session on the same connection slot,
   * where a COMMIT would "succeed" with no transaction to commit.
   */
  private lost: Error | undefined;
  private readonly guard = () => {
    if (this.lost) throw errors.databaseUnavailable(`the write group lost its database connection: ${this.lost.message}`);
  };

  constructor(
    pool: PgPool,
    private readonly memo: Map<string, unknown>,
  ) {
    const watch = (raw: RawConnection) => {
      raw.onclose = (err) => {
        this.lost ??= err;
        this.broken ??= err;
      };
      return true;
    };
    this.conn = pool.use((client) => client.reserve()).then(async (c) => {
      // `onexecute` is how the driver's own transactions learn of their connection's close.
      await c.unsafe("BEGIN", [], { onexecute: watch } as postgres.UnsafeQueryOptions);
      return c;
    });
    this.chain = this.conn.catch((err: unknown) => void (this.broken ??= err));
  }

  bump(ids: readonly number[]): void {
    for (const id of ids) this.callBumped.add(id);
  }

  call<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    const run = this.chain.then(() => this.savepoint(fn));
    this.chain = run.catch(() => undefined);
    return run;
  }

  // Not queued behind the calls: a read issued while one runs goes between its statements.
  async read<T>(text: string, params: readonly unknown[]): Promise<T[]> {
    const c = await this.conn;
    this.guard();
    return query<T>(c, text, params);
  }

  /** Sends one statement of the group's own, unless the connection is lost. */
  private send(c: postgres.ReservedSql, text: string): Promise<unknown> {
    this.guard();
    return c.unsafe(text).execute();
  }

  /**
   * One call as a savepoint. SAVEPOINT and RELEASE are pipelined with the call's own
   * statements (the connection runs them in order), so a call costs no extra round trip.
   */
  private async savepoint<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    if (this.broken) throw this.broken;
    const c = await this.conn;
    const begun = this.send(c, "SAVEPOINT dds_call");
    const tx = new PgTx(c, this.memo, this.guard);
    try {
      const result = await fn(tx);
      await begun;
      tx.end();
      for (const a of tx.announced()) this.announced.add(a);
      for (const id of this.callBumped) this.bumped.add(id);
      this.callBumped.clear();
      // Not awaited: the next statement on this connection runs after it; a failure (the
      // connection lost) breaks the group, whose commit then fails.
      this.send(c, "RELEASE SAVEPOINT dds_call").catch((err: unknown) => (this.broken ??= err));
      return result;
    } catch (err) {
      tx.end();
      this.callBumped.clear();
      await begun.catch(() => undefined);
      try {
        await this.send(c, "ROLLBACK TO SAVEPOINT dds_call");
        await this.send(c, "RELEASE SAVEPOINT dds_call");
      } catch (undo) {
        this.broken ??= undo;
      }
      throw err;
    }
  }

  /** Commits (or rolls back) after the calls in flight; returns what a commit announces. */
  async end(how: "COMMIT" | "ROLLBACK"): Promise<Set<Announcement>> {
    await this.chain;
    let c: postgres.ReservedSql;
    try {
      c = await this.conn;
    } catch (err) {
      throw errors.databaseUnavailable(`the write group could not start: ${(err as Error).message}`);
    }
    try {
      if (how === "COMMIT" && this.broken) {
        if (!this.lost) await this.send(c, "ROLLBACK").catch(() => undefined);
        throw errors.databaseUnavailable(`the write group was rolled back; nothing of it was kept: ${(this.broken as Error).message}`);
      }
      if (how === "ROLLBACK") {
        if (!this.lost) await this.send(c, "ROLLBACK");
        return new Set();
      }
      this.guard();
      if (this.announced.size > 0) await c.unsafe(NOTIFY, [[...this.announced]] as Params, { prepare: true });
      await this.send(c, "COMMIT");
      return this.announced;
    } finally {
      // A lost connection is already back in the driver's closed pool: released, it would
      // be handed out as open.
      if (!this.lost) c.release();
    }
  }
}
