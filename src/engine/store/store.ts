import type { IngestStore } from "./evidence-repo.js";
import type { PassStore } from "./pass-store.js";
import type { Row, Signal, Sql } from "./sql.js";

/**
 * An in-progress mark on an Idempotency-Key held by this process. On PostgreSQL it is a
 * session advisory lock, so it dies with the node that holds it; `release` gives it back.
 */
export interface KeyLock {
  release(): Promise<void>;
}

/** What a store's connection pool is doing, as far as this process can tell (metrics). */
export interface PoolStats {
  /** Connections the pool may open. */
  max: number;
  /** Connections held by a statement, a transaction or a reservation. */
  inUse: number;
  /** Connections free for the next statement (opened or not: drivers open them on demand). */
  idle: number;
  /** Operations beyond the pool's size, waiting for a connection (an upper bound on PostgreSQL). */
  waiting: number;
}

/** An open database: one of the two adapters behind the same port. */
export interface Store {
  readonly kind: "sqlite" | "postgres";
  /** The root executor: each statement on its own, or `sql.tx(...)` for a transaction. */
  readonly sql: Sql;
  /** What to show a user: the SQLite path, or the PostgreSQL URL without its password. */
  readonly location: string;
  /**
   * SQLite: the database file (`:memory:` for none), beside which the key file and the
   * process owner locks live. Absent on PostgreSQL, whose keys come from the environment.
   */
  readonly file?: string;
  /**
   * True when work committed by another process reaches `on` (PostgreSQL's notifications);
   * false where such work is only found by looking (another process writing the SQLite file),
   * so idle loops poll.
   */
  readonly hearsOtherProcesses: boolean;
  /**
   * True where several writers work at once under row locks (PostgreSQL's nodes): a long
   * transaction makes the others wait on its rows. False where one writer holds the whole
   * database anyway (SQLite), so grouping passes costs other writers nothing more.
   */
  readonly concurrentWriters: boolean;
  /** What an ingest asks of the store, each store its fastest way. */
  readonly ingest: IngestStore;
  /** How a pass commit writes its rows, each store its fastest way. */
  readonly passes: PassStore;
  /**
   * A value that changes whenever the database may have changed, for caches of what was
   * read: on SQLite a commit by another connection (data_version) or a row written through
   * this one; on PostgreSQL a commit on any node (NOTIFY) or through this one. `maxAgeMs`
   * lets SQLite re-read the other-connections half (a read lock) at most that often.
   */
  changeStamp(maxAgeMs?: number): string;
  /**
   * Resolves once changeStamp counts every commit that had returned, on any node, before
   * the call (PostgreSQL: a round trip on the listening session, shared by the callers
   * waiting at once; see pg-notifications.ts). A cache consulted after it cannot answer
   * with what a write its caller was already told about has replaced. Absent where
   * changeStamp is current by itself.
   */
  settled?(): Promise<void>;
  /**
   * Calls `fn` whenever committed work announced `signal` (Sql.signal), here or (on
   * PostgreSQL) on another node; also after a lost notification connection comes back.
   * Returns the unsubscribe function.
   */
  on(signal: Signal, fn: () => void): () => void;
  /**
   * Takes the cross-node in-progress mark of a key, or undefined when another session holds
   * it. Absent on SQLite, where one file has one writer and the mark is a row.
   */
  lockKey?(workspace: string, key: string): Promise<KeyLock | undefined>;
  /**
   * lockKey, then `read` on the same connection, sent together (one round trip): the read
   * runs once the mark is taken or refused. Present wherever lockKey is.
   */
  lockKeyAndRead?(workspace: string, key: string, read: { text: string; params: readonly unknown[] }): Promise<{ lock: KeyLock | undefined; rows: Row[] }>;
  /**
   * Evidence arrived: inside the caller's transaction, bumps each context's evidence version
   * (resolved → stale; a computing pass notices the version) and wakes the workers. Takes
   * the contexts' keys, and the records whose evidence changed (not those created by the
   * write, which no pass has resolved yet): each gets its context's new version, so the next
   * pass knows to resolve it again. Returns the contexts that turned stale (by id), for
   * `context.stale`. Each store does it its fastest way.
   */
  markStale(db: Sql, contextKeys: Iterable<number>, recordKeys?: Iterable<number>): Promise<{ contextId: string; workspace: string }[]>;
  /**
   * markStale as the last statements of the caller's transaction, sent with its COMMIT
   * (PostgreSQL): the contexts' rows are locked from then until the commit only, so writers
   * into the same contexts do not wait on each other's whole transactions. It does not tell
   * which contexts turned stale (for a caller that emits no `context.stale`). False where it
   * cannot (a savepoint, a write group's call; SQLite, absent): nothing was done. `held`:
   * the caller's transaction holds the contexts until it ends, at least FOR KEY SHARE (a
   * writer of evidence, see ContextRepo.getStates); contexts already stale may then be left alone.
   */
  markStaleAtCommit?(db: Sql, contextKeys: Iterable<number>, recordKeys?: Iterable<number>, held?: boolean): boolean;
  /** Optional write groups: see DdsService.writeGroup. */
  writeGroup?(): WriteGroup;
  /** The connection pool's use (PostgreSQL); absent on SQLite, which has one connection and no pool. */
  poolStats?(): PoolStats;
  /**
   * Calls `fn` after each top-level operation on the database (a statement, or a whole
   * transaction) with its seconds, from a held connection to its answer, and whether it
   * failed (PostgreSQL, for the metrics; absent on SQLite, whose statements run in-process).
   * Returns the unsubscribe function.
   */
  observeQueries?(fn: (seconds: number, failed: boolean) => void): () => void;
  /** Resolves when the database answers a trivial query (`/readyz`, the metrics' `dds_db_up`). */
  ping(): Promise<void>;
  /**
   * What the store knows of its database without asking it: false while it is known to be
   * unreachable (PostgreSQL; requests are refused with 503 meanwhile). Absent: always true.
   */
  reachable?(): boolean;
  close(): Promise<void>;
}

/** Creates the workspace row if it does not exist yet; true when it was created now. */
export async function ensureWorkspace(sql: Sql, name: string): Promise<boolean> {
  return (await sql.run("INSERT INTO workspaces (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", [name, sql.dialect.time(Date.now())])) > 0;
}

/**
 * Calls committed together (see Store.writeGroup): the in-process engine offers it, so a
 * local import commits a few hundred milliseconds of batches at once instead of one
 * transaction per batch; each call stays atomic on its own. Nothing of a group is durable
 * before `commit` returns (SQLite) or resolves (PostgreSQL). Not part of the service
 * contract: a remote service commits each request.
 */
export interface WriteGroup {
  /** Makes every call since the group began durable. */
  commit(): void | Promise<void>;
  /** Undoes every call since the group began. */
  rollback(): void | Promise<void>;
  /**
   * Where the rows the group's calls insert are until it commits: `table` (SQLite: in the
   * tables, with keys above any row before the group) or `held` (PostgreSQL: in memory, for
   * one COPY at the end). Passes run as the group ends read only what was there before.
   */
  readonly rows?: "table" | "held";
  /**
   * Runs the group's passes (`run`) inside it, before it commits; resolves to false when
   * the group cannot have them (PostgreSQL: its rows were copied early, so the tables and
   * the journal would both hold them) and `run` was not called.
   */
  runPasses?(run: () => Promise<unknown>): Promise<boolean>;
}
