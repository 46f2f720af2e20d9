import type postgres from "postgres";
import type { WriteGroup } from "../store.js";
import { errors } from "../../../contract/errors.js";
import type { Sql } from "../sql.js";
import type { StaleMarks } from "./pg-stale.js";
import type { PgPool } from "./pg-pool.js";
import { GroupConnection, type StatementHook } from "./pg-group-connection.js";
import type { IngestBuffer } from "./pg-ingest-buffer.js";
import { KeyBlocks, type KeySource } from "./pg-key-blocks.js";
import { GroupMemo, newIngestBuffer } from "./pg-ingest.js";
import { KnownIdentities } from "./pg-known-identities.js";
import { NOTIFY, PgTx, query, type Announcement, type CommitSink, type GroupSlot, type OpenGroup, type Params } from "./pg-sql.js";

/** The store's write groups: the open one (for the root executor and pgMarkStale), and how to open one. */
export interface PgWriteGroups extends GroupSlot {
  readonly marks: StaleMarks | undefined;
  /** Records to stamp, without those the open group holds (see IngestBuffer.stamp). */
  unheld(records: Iterable<number> | undefined): Iterable<number> | undefined;
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
 *
 * The records and contributions the calls insert are held by the group and copied in with
 * `COPY … FROM STDIN` (pg-ingest-buffer.ts), at the latest before COMMIT: a copy that
 * fails fails the commit, so the checkpoint never passes rows that were not stored.
 */
export function createPgWriteGroups(pool: PgPool, sink: CommitSink): PgWriteGroups {
  let current: PgGroup | undefined;
  const keys = new KeyBlocks(keysFrom(pool));
  const known = new KnownIdentities();
  return {
    get current() {
      return current;
    },
    get marks() {
      return current;
    },
    unheld: (records) => (current && records ? current.unheld(records) : records),
    open(memo) {
      if (current) throw new Error("a write group is already open");
      const group = new PgGroup(pool, memo, keys, known);
      current = group;
      const close = async (how: "COMMIT" | "ROLLBACK") => {
        if (current === group) current = undefined;
        const announced = await group.end(how);
        sink.committed(announced);
      };
      return {
        rows: "held",
        runPasses: (run) => group.runPasses(run),
        commit: () => close("COMMIT"),
        rollback: () => close("ROLLBACK"),
      };
    },
  };
}

/** Keys from a table's identity sequence, taken on a pooled connection (sequences are not transactional). */
const keysFrom = (pool: PgPool): KeySource => {
  const sequences = new Map<string, Promise<string>>();
  const sequence = (table: string) => {
    let name = sequences.get(table);
    // The table name is one of two literals.
    if (!name) sequences.set(table, (name = pool.use((client) => client.unsafe<{ s: string }[]>(`SELECT pg_get_serial_sequence('${table}', 'id') AS s`)).then((r) => r[0].s)));
    return name;
  };
  return async (table, n) => {
    // One row of text: thousands of rows cost the driver more to read than the server to make.
    const name = await sequence(table);
    const [row] = await pool.use((client) =>
      client.unsafe<{ ids: string }[]>("SELECT string_agg(nextval($1::regclass)::text, ',') AS ids FROM generate_series(1, $2::int)", [name, n]),
    );
    return row.ids.split(",").map(Number);
  };
};

/** The driver's connection object, as a query's `onexecute` hands it over (not in its types). */
interface RawConnection {
  onclose?: (err: Error) => void;
}

/** A write that may change contexts' freshness behind the group's marks (a pass resolving one, say). */
const CONTEXTS_WRITE = /^\s*(INSERT|UPDATE|DELETE)\b[\s\S]*\bcontexts\b/i;

class PgGroup implements OpenGroup, StaleMarks, StatementHook {
  /** Contexts whose evidence version calls of this group have bumped (see pgMarkStale). */
  readonly bumped = new Set<number>();
  /** Those the running call bumped, with their versions: the group's only once its savepoint is released. */
  private callBumped = new Map<number, number>();
  /** Each context's evidence version after the group's last bump of it. */
  private readonly versions = new Map<number, number>();
  /** The reserved connection, once BEGIN has run on it. */
  private readonly conn: Promise<GroupConnection>;
  /** The records and contributions of the group's calls, until copied. */
  private readonly buffer: IngestBuffer;
  /** The calls' memo: the store's, carrying the buffer to its ingest. */
  private readonly memo: GroupMemo;
  /** Calls run one after another: each waits for the previous one's savepoint to end. */
  private chain: Promise<unknown>;
  private readonly announced = new Set<Announcement>();
  /** Set while the last call's savepoint waits for its RELEASE (sent with the next SAVEPOINT). */
  private unreleased = false;
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

  constructor(pool: PgPool, memo: Map<string, unknown>, keys: KeyBlocks, known: KnownIdentities) {
    this.buffer = newIngestBuffer(keys, known);
    this.memo = new GroupMemo(memo, this.buffer);
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
      return new GroupConnection(c, this.guard, this);
    });
    this.chain = this.conn.catch((err: unknown) => void (this.broken ??= err));
  }

  before(text: string, conn: GroupConnection): void {
    this.buffer.before(text, conn);
    // The marks say a context is stale still: after such a write it may not be.
    if (CONTEXTS_WRITE.test(text)) {
      this.bumped.clear();
      this.callBumped.clear();
    }
  }

  unheld(records: Iterable<number>): number[] {
    return this.buffer.stamp(records);
  }

  bump(rows: readonly { key: number; version: number }[]): void {
    for (const r of rows) this.callBumped.set(r.key, r.version);
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
    return query<T>(c as unknown as postgres.ReservedSql, text, params);
  }

  /** Sends one statement of the group's own, unless the connection is lost. */
  private send(c: GroupConnection, text: string): Promise<postgres.RowList<postgres.Row[]>> {
    this.guard();
    // The simple protocol: a text may hold two statements.
    return c.send(() => c.raw.unsafe(text).simple().execute());
  }

  /** The executor of one call: the group's connection in the driver's place (it only calls `unsafe`). */
  private executor(c: GroupConnection): PgTx {
    return new PgTx(c as unknown as postgres.ReservedSql, this.memo, this.guard);
  }

  /**
   * One call as a savepoint. A call's RELEASE is sent with the next call's SAVEPOINT, in
   * one message (COMMIT releases the last one), and both are pipelined with the call's own
   * statements (the connection runs them in order): a call costs no extra round trip.
   */
  private async savepoint<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    if (this.broken) throw this.broken;
    const c = await this.conn;
    this.buffer.beginCall();
    const begun = this.send(c, this.unreleased ? "RELEASE SAVEPOINT dds_call; SAVEPOINT dds_call" : "SAVEPOINT dds_call");
    this.unreleased = false;
    const tx = this.executor(c);
    try {
      const result = await fn(tx);
      await begun;
      tx.end();
      this.buffer.endCall(true);
      for (const a of tx.announced()) this.announced.add(a);
      for (const [id, version] of this.callBumped) {
        this.bumped.add(id);
        this.versions.set(id, version);
      }
      this.callBumped.clear();
      this.unreleased = true;
      return result;
    } catch (err) {
      tx.end();
      this.callBumped.clear();
      // What the call held is dropped; rows of earlier calls copied inside its savepoint are held again.
      this.buffer.endCall(false);
      try {
        // A SAVEPOINT that failed may not have released the call before (or the connection
        // is gone): rolling back to a savepoint could then undo a call that has answered.
        await begun;
        await this.send(c, "ROLLBACK TO SAVEPOINT dds_call; RELEASE SAVEPOINT dds_call");
      } catch (undo) {
        this.broken ??= undo;
      }
      throw err;
    }
  }

  /**
   * Runs the group's passes while its rows stay held (their reads and writes name only
   * rows of the tables; the records held are copied resolved): unless a statement made the
   * group copy its rows early, when the passes are left for later (false).
   */
  async runPasses(run: () => Promise<unknown>): Promise<boolean> {
    await this.chain;
    if (this.buffer.copiedEarly) return false;
    this.buffer.resolving = true;
    try {
      await run();
      this.buffer.passesRan = true;
    } finally {
      this.buffer.resolving = false;
    }
    return true;
  }

  /** Commits (or rolls back) after the calls in flight; returns what a commit announces. */
  async end(how: "COMMIT" | "ROLLBACK"): Promise<Set<Announcement>> {
    await this.chain;
    let c: GroupConnection;
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
      try {
        await this.buffer.copy(c);
      } catch (err) {
        if (!this.lost) await this.send(c, "ROLLBACK").catch(() => undefined);
        this.guard();
        throw err;
      }
      if (this.announced.size > 0) await c.send(() => c.raw.unsafe(NOTIFY, [[...this.announced]] as Params, { prepare: true }).execute());
      const done = await this.send(c, "COMMIT");
      // An aborted transaction answers COMMIT with ROLLBACK, and no error.
      if (done.command !== "COMMIT") throw errors.databaseUnavailable("the write group was rolled back by the database; nothing of it was kept");
      this.buffer.committed(this.versions);
      return this.announced;
    } finally {
      // A lost connection is already back in the driver's closed pool: released, it would
      // be handed out as open.
      if (!this.lost) c.raw.release();
    }
  }
}
