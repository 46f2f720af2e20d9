/**
 * The engine's data-access port: a thin SQL executor with one implementation per store
 * (SQLite, PostgreSQL). Repositories are written once against it, in the SQL both stores
 * speak (`?` placeholders, ON CONFLICT, RETURNING), and ask the {@link Dialect} for the
 * few expressions and parameter forms that differ. Rows come back in the same JavaScript
 * forms from both: UUIDs as lowercase strings, times as ISO 8601 strings, booleans as
 * booleans, digests as hex, JSON as its text (see schema/columns.ts).
 */

/** A row as the driver returns it: column name to value. */
export type Row = Record<string, unknown>;

/** What committed work may announce to workers in this process and on other nodes. */
export type Signal = "work" | "outbox";

/** Options of a transaction. */
export interface TxOptions {
  /** A read-only snapshot: several reads that must agree (a pass's input). */
  readOnly?: boolean;
}

/**
 * Runs SQL: the store itself (each statement on its own), or an open transaction. Code
 * inside a transaction must use the transaction's executor, never the store's: on the one
 * SQLite connection a store statement waits for the open transaction to end, so using it
 * from inside would wait for itself.
 */
export interface Sql {
  readonly dialect: Dialect;
  /**
   * Values read once per store and kept (the cursor signing key, field keys): one map
   * shared by the store's executor and every transaction's.
   */
  readonly memo: Map<string, unknown>;
  /**
   * What holds while the write group this transaction belongs to stays open (one
   * transaction holding the whole database, so nothing outside it changes a row): set only
   * inside a SQLite write group. It is emptied when the group ends, when any savepoint of
   * it rolls back, and by every write that changes what is kept here ({@link forgetGroupState}).
   */
  readonly groupMemo?: Map<string, unknown>;
  /**
   * Set on a transaction run again because another writer gave the same record its evidence
   * at the same moment (PostgreSQL; see pg-sql.ts): it holds the contexts it writes into
   * against every other writer, so it cannot lose that race again.
   */
  readonly serialized?: boolean;
  /** Every row of a query. */
  all<T = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** The first row of a query, or undefined. */
  get<T = Row>(text: string, params?: readonly unknown[]): Promise<T | undefined>;
  /** Runs a statement; resolves to the number of rows it changed. */
  run(text: string, params?: readonly unknown[]): Promise<number>;
  /**
   * Runs `fn` in a transaction: a new one on the store, a savepoint inside a transaction.
   * A throw rolls back what `fn` did and is rethrown.
   */
  tx<T>(fn: (tx: Sql) => Promise<T>, options?: TxOptions): Promise<T>;
  /**
   * Announces `signal` once the outermost transaction commits (at once outside one), to
   * listeners in this process and, on PostgreSQL, on every node (NOTIFY).
   */
  signal(signal: Signal): void;
}

/**
 * Forgets what the open write group remembers of contexts (their states, which it bumped):
 * called by every write that changes a context's status or freshness.
 */
export function forgetGroupState(db: Sql): void {
  db.groupMemo?.clear();
}

/**
 * The open write group's map named `name`, made on first use; undefined outside a SQLite
 * write group (see Sql.groupMemo: whatever is kept there goes with forgetGroupState).
 */
export function groupMap<K, V>(db: Sql, name: string): Map<K, V> | undefined {
  const memo = db.groupMemo;
  if (!memo) return undefined;
  let map = memo.get(name) as Map<K, V> | undefined;
  if (!map) memo.set(name, (map = new Map()));
  return map;
}

/**
 * Values by key through the open write group's map `name`: only the keys the group has not
 * asked for yet are read (`read` answers those it finds), and what it read, absence
 * included, is kept for the group's later calls. Outside a group, `read` of every key.
 */
export async function readThroughGroup<K, V>(db: Sql, name: string, keys: readonly K[], read: (keys: readonly K[]) => Promise<Map<K, V>>): Promise<Map<K, V>> {
  const known = groupMap<K, V | undefined>(db, name);
  if (!known) return read(keys);
  const wanted = keys.filter((k) => !known.has(k));
  if (wanted.length > 0) {
    const found = await read(wanted);
    for (const k of wanted) known.set(k, found.get(k));
  }
  const out = new Map<K, V>();
  for (const k of keys) {
    const v = known.get(k);
    if (v !== undefined) out.set(k, v);
  }
  return out;
}

/** The SQL texts and parameter forms that differ between the stores; everything else is written once. */
export interface Dialect {
  readonly name: "sqlite" | "postgres";
  /**
   * Appended to a SELECT that reads rows the transaction is about to change, so two nodes
   * cannot both act on the same read: `FOR UPDATE` on PostgreSQL; nothing on SQLite, whose
   * write transactions already hold the whole database.
   */
  readonly forUpdate: string;
  /**
   * Appended to a SELECT of rows whose non-key columns the transaction is about to change
   * (freshness, versions): `FOR NO KEY UPDATE` on PostgreSQL, which waits for other
   * changers but not for writers of evidence holding {@link forKeyShare}; nothing on SQLite.
   */
  readonly forNoKeyUpdate: string;
  /**
   * Appended to a SELECT of rows that must not change status or disappear while the
   * transaction writes under them (the contexts a bulk writes evidence into): `FOR KEY
   * SHARE` on PostgreSQL, which writers share with each other and with the pipeline's claims
   * and commits, and which only `forUpdate` (a status change) waits for; nothing on SQLite.
   */
  readonly forKeyShare: string;
  /** Appended to a queue's SELECT: `FOR NO KEY UPDATE SKIP LOCKED` on PostgreSQL, nothing on SQLite. */
  readonly skipLocked: string;
  /**
   * A sort key that no index may serve: SQLite's no-op unary `+` (without statistics its
   * planner would rather walk the sort's index than look up a selective filter's); on
   * PostgreSQL, whose planner has statistics, the key as it is.
   */
  sortOnly(expr: string): string;
  /** A UUID parameter; a string that is no UUID becomes NULL, which matches nothing. */
  uuid(id: string | null | undefined): unknown;
  /** A time parameter, from ISO 8601 text or epoch milliseconds (null stays null). */
  time(t: string | number | null | undefined): unknown;
  /** A boolean parameter. */
  bool(b: boolean): unknown;
  /** A digest parameter from its hex (null stays null). */
  digest(hex: string | null): unknown;
  /** A time column as epoch milliseconds (a number), for arithmetic and keyset cursors. */
  epochMs(column: string): string;
  /** A time expression plus `ms` milliseconds. */
  timePlusMs(expr: string, ms: number): string;
  /** A time column as ISO 8601 text (what `contains` filters search). */
  timeText(column: string): string;
  /**
   * A JSON value inside a JSON column, by a path of keys checked by the caller (they are
   * inlined), comparable with values made by {@link jsonValue}.
   */
  jsonPath(column: string, keys: readonly string[]): string;
  /** The same value as text (or a number on SQLite), for sorting and substring tests. */
  jsonText(column: string, keys: readonly string[]): string;
  /** A value to bind against {@link jsonPath}: a number, a string or a boolean. */
  jsonValue(value: string | number | boolean): unknown;
  /** True when the JSON array in `column` holds the string bound to the next `?`. */
  jsonArrayHas(column: string): string;
  /**
   * A statement that waits for the transaction-scoped lock of the string bound to its one
   * `?` (an Idempotency-Key), on PostgreSQL; absent on SQLite, where a write transaction
   * already excludes every other writer.
   */
  readonly lockKey?: string;
  /** True when `text` (an expression) contains the string bound to the next `?`, ignoring case. */
  containsText(text: string): string;
  /**
   * True when the integer `column` is one of the keys bound to the next `?` as
   * {@link keyList}: one statement text for any number of keys (a prepared statement on
   * PostgreSQL, not one per list length).
   */
  inKeys(column: string): string;
  /** The parameter of {@link inKeys}. */
  keyList(keys: readonly number[]): unknown;
  /**
   * True when the worker named in the text `column` (a claim's `claimed_by`) has no live
   * session holding its mark (see claim-session.ts): its claims may be taken over before
   * their lease ends. Absent where claims are bound to their lease only (SQLite).
   */
  claimHolderGone?(column: string): string;
  /**
   * True when no writer's COMMIT holds the gate of the context whose key `column` names,
   * and the claiming statement now holds it to its end (PostgreSQL, see pg-stale-gate.ts: a
   * COMMIT leaves contexts already stale alone, so a claim must not come between its read
   * of them and its end). Absent where a write transaction holds the whole database (SQLite).
   */
  claimGate?(column: string): string;
  /**
   * A query of one row, `n`: how many pipeline workers of any process hold a claim mark on
   * this database now (see claim-session.ts), so each can pace its passes for the fleet.
   * Absent where claims are bound to their lease only (SQLite).
   */
  liveWorkers?: string;
}
