import type Database from "better-sqlite3";
import { DdsError } from "../../../contract/errors.js";
import type { Signal, Sql, TxOptions } from "../sql.js";
import { ConnectionLock } from "./connection-lock.js";
import { sqliteDialect } from "./sqlite-dialect.js";
import { allRows, firstRow, statementCache, type Prepared } from "./statements.js";

/** The shared state of one SQLite connection behind its executors. */
export class SqliteConnection {
  readonly q: (sql: string) => Prepared;
  readonly lock = new ConnectionLock();
  /** Set while a write group's transaction is open: top-level transactions become its savepoints. */
  groupOpen = false;
  /** Signals of the write group's savepoints, announced when the group commits. */
  groupSignals = new Set<Signal>();
  /** See Sql.memo. */
  readonly memo = new Map<string, unknown>();
  /** See Sql.groupMemo: emptied whenever the group opens, ends or loses a savepoint. */
  readonly groupMemo = new Map<string, unknown>();
  /**
   * Moves after every statement that may have changed a row through this connection (a
   * write, a transaction's end): the change stamp asks SQLite for its count of changed rows
   * only when this moved, not on every read (see changeStamps in sqlite-store.ts).
   */
  writes = 0;
  /** Told after each COMMIT through this connection (the background checkpoints). */
  afterCommit: (() => void) | undefined;

  constructor(
    readonly raw: Database.Database,
    private readonly announce: (signal: Signal) => void,
    /** How long to wait for a database locked by another connection before failing. */
    readonly busyTimeoutMs: number,
  ) {
    this.q = statementCache(raw);
  }

  /** Announces signals after a commit (or keeps them for the open write group). */
  committed(signals: Set<Signal> | undefined): void {
    if (!signals) return;
    for (const s of signals) {
      if (this.groupOpen) this.groupSignals.add(s);
      else this.announce(s);
    }
  }

  /** Announces what the write group's savepoints collected (after its COMMIT). */
  flushGroupSignals(): void {
    const signals = this.groupSignals;
    this.groupSignals = new Set();
    for (const s of signals) this.announce(s);
  }

  run(text: string): void {
    this.q(text).stmt.run();
    this.writes++;
  }
}

const isBusy = (err: unknown): boolean => typeof (err as { code?: unknown })?.code === "string" && (err as { code: string }).code.startsWith("SQLITE_BUSY");

/**
 * Runs `f`, and while another connection (another process) holds the database, retries it
 * after growing pauses, up to the busy timeout. SQLite's own busy handler would sleep
 * inside the call and stop the event loop, and with it this process's own open
 * transaction, which may be the one in the way.
 */
async function whenFree<T>(conn: SqliteConnection, f: () => T): Promise<T> {
  const deadline = performance.now() + conn.busyTimeoutMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    try {
      return f();
    } catch (err) {
      if (!isBusy(err) || performance.now() >= deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, pause));
  }
}

const settle = <T>(f: () => T): Promise<T> => {
  try {
    return Promise.resolve(f());
  } catch (err) {
    return Promise.reject(err);
  }
};

/**
 * The store's executor: each statement on its own, after any open transaction of this
 * connection has ended (it then sees only committed rows). Uncontended, a statement runs
 * at once, with no lock round trip.
 */
export function sqliteRootSql(conn: SqliteConnection): Sql {
  const exclusive = <T>(f: () => T): Promise<T> => {
    const wait = conn.lock.acquire();
    if (!wait) {
      let result: T;
      try {
        result = f();
      } catch (err) {
        if (!isBusy(err)) {
          conn.lock.release();
          return Promise.reject(err);
        }
        return whenFree(conn, f).finally(() => conn.lock.release());
      }
      conn.lock.release();
      return Promise.resolve(result);
    }
    return wait.then(() => whenFree(conn, f)).finally(() => conn.lock.release());
  };
  /** A statement that returns rows, counted as a write (see SqliteConnection.writes) unless SQLite says it only reads. */
  const query = <R>(text: string, fetch: (p: Prepared) => R): Promise<R> =>
    exclusive(() => {
      const p = conn.q(text);
      const result = fetch(p);
      if (!p.stmt.readonly) conn.writes++;
      return result;
    });
  return {
    dialect: sqliteDialect,
    memo: conn.memo,
    // A statement of the store's own runs inside the open write group's transaction too.
    get groupMemo() {
      return conn.groupOpen ? conn.groupMemo : undefined;
    },
    all: <T>(text: string, params: readonly unknown[] = []) => query(text, (p) => allRows<T>(p, params)),
    get: <T>(text: string, params: readonly unknown[] = []) => query(text, (p) => firstRow<T>(p, params)),
    run: (text: string, params: readonly unknown[] = []) =>
      exclusive(() => {
        const changes = conn.q(text).stmt.run(params).changes;
        conn.writes++;
        return changes;
      }),
    async tx<T>(fn: (tx: Sql) => Promise<T>, options: TxOptions = {}): Promise<T> {
      const wait = conn.lock.acquire();
      if (wait) await wait;
      const tx = new SqliteTx(conn, 1);
      // Inside a write group the transaction is already open: this one is its savepoint.
      const inGroup = conn.groupOpen;
      try {
        // A group the database rolled back on its own (a full disk) must not turn into a
        // string of small transactions: the group reports it at commit.
        if (inGroup && !conn.raw.inTransaction) throw new DdsError("unavailable", "the write group was rolled back by the database");
        if (inGroup) conn.run("SAVEPOINT sp1");
        else if (options.readOnly) conn.run("BEGIN");
        else await whenFree(conn, () => conn.run("BEGIN IMMEDIATE"));
        let result: T;
        try {
          result = await fn(tx);
          conn.run(inGroup ? "RELEASE sp1" : "COMMIT");
        } catch (err) {
          // SQLite rolls back on its own after some errors (a full disk): nothing left to undo.
          if (conn.raw.inTransaction) {
            if (inGroup) {
              conn.groupMemo.clear();
              conn.run("ROLLBACK TO sp1");
              conn.run("RELEASE sp1");
            } else conn.run("ROLLBACK");
          }
          throw err;
        }
        conn.committed(tx.signals);
        if (!inGroup && !options.readOnly) conn.afterCommit?.();
        return result;
      } finally {
        tx.end();
        conn.lock.release();
      }
    },
    signal: (s) => conn.committed(new Set([s])),
  };
}

/**
 * The prepared statement of `text` on the connection of the transaction `db`, to run
 * synchronously (the ingest's row-at-a-time writes). Only inside a transaction, which
 * holds the connection: a statement outside one would not wait its turn.
 */
export function sqliteStatement(db: Sql, text: string): Database.Statement {
  if (!(db instanceof SqliteTx)) throw new Error("a SQLite statement runs synchronously only inside a transaction");
  return db.statement(text);
}

/**
 * An open transaction (depth 1) or savepoint (deeper). It owns the connection lock, so its
 * statements run at once. A savepoint must finish before its parent runs anything else:
 * statements interleaved with an open savepoint would land inside it.
 */
class SqliteTx implements Sql {
  readonly dialect = sqliteDialect;
  get memo(): Map<string, unknown> {
    return this.conn.memo;
  }
  get groupMemo(): Map<string, unknown> | undefined {
    return this.conn.groupOpen ? this.conn.groupMemo : undefined;
  }
  signals: Set<Signal> | undefined;
  private open = true;
  private childOpen = false;

  constructor(
    private readonly conn: SqliteConnection,
    private readonly depth: number,
  ) {}

  end(): void {
    this.open = false;
  }

  private check(): void {
    if (!this.open) throw new Error("this transaction has ended; its executor cannot run statements any more");
    if (this.childOpen) throw new Error("a statement ran on a transaction while a savepoint of it was open");
  }

  /** The prepared statement of `text`, checked as every statement of this transaction is. */
  statement(text: string): Database.Statement {
    this.check();
    return this.conn.q(text).stmt;
  }

  all<T>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return settle(() => {
      this.check();
      return allRows<T>(this.conn.q(text), params);
    });
  }

  get<T>(text: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return settle(() => {
      this.check();
      return firstRow<T>(this.conn.q(text), params);
    });
  }

  run(text: string, params: readonly unknown[] = []): Promise<number> {
    return settle(() => {
      this.check();
      return this.conn.q(text).stmt.run(params).changes;
    });
  }

  async tx<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    this.check();
    const name = `sp${this.depth + 1}`;
    const child = new SqliteTx(this.conn, this.depth + 1);
    this.conn.run(`SAVEPOINT ${name}`);
    this.childOpen = true;
    try {
      const result = await fn(child);
      this.conn.run(`RELEASE ${name}`);
      for (const s of child.signals ?? []) this.signal(s);
      return result;
    } catch (err) {
      if (this.conn.raw.inTransaction) {
        this.conn.groupMemo.clear();
        this.conn.run(`ROLLBACK TO ${name}`);
        this.conn.run(`RELEASE ${name}`);
      }
      throw err;
    } finally {
      child.end();
      this.childOpen = false;
    }
  }

  signal(s: Signal): void {
    (this.signals ??= new Set()).add(s);
  }
}
