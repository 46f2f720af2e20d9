import type postgres from "postgres";
import { asDatabaseUnavailable } from "../db-errors.js";
import type { Signal, Sql, TxOptions } from "../sql.js";
import { postgresDialect } from "./pg-dialect.js";
import type { PgPool } from "./pg-pool.js";
import { pgText } from "./pg-text.js";

/** The notification channel every node listens on; payloads say what happened. */
export const CHANNEL = "dds_events";

/** What a committed write announces: `change` always (caches), plus the signals raised in it. */
export type Announcement = Signal | "change";

/** What the executors tell the store about commits made through this process. */
export interface CommitSink {
  committed(announced: ReadonlySet<Announcement>): void;
}

type Client = postgres.Sql | postgres.TransactionSql;
/** Parameters as the driver types them. */
export type Params = postgres.ParameterOrJSON<never>[];

// Every write transaction ends with one NOTIFY per payload (PostgreSQL delivers them on
// commit, to every node, collapsing duplicates): `change` lets caches elsewhere drop what
// they read; `work` and `outbox` wake workers and dispatchers.
export const NOTIFY = `SELECT pg_notify('${CHANNEL}', x) FROM unnest($1::text[]) AS x`;
/** NOTIFY with its payloads written in (they are this module's own words, never input). */
const notifyText = (announce: ReadonlySet<Announcement>) => `SELECT pg_notify('${CHANNEL}', x) FROM unnest(ARRAY[${[...announce].map((a) => `'${a}'`).join(",")}]::text[]) AS x`;

/**
 * An array written into a statement's text, for the deferred statements of a commit (see
 * PgTx.atCommit): integers as an array literal; strings as an ARRAY of escape-string
 * literals (E'…': a backslash and a quote doubled mean themselves whatever
 * standard_conforming_strings says), typed text[] so that an empty one has a type.
 */
const inlineArray = (values: readonly (number | string)[]): string => {
  if (values.length > 0 && typeof values[0] === "string") return `ARRAY[${values.map(inlineText).join(",")}]::text[]`;
  for (const v of values) if (typeof v !== "number" || !Number.isSafeInteger(v)) throw new Error(`not an integer key: ${String(v)}`);
  return `'{${values.join(",")}}'`;
};

/** A text as an escape-string literal (see inlineArray). */
const inlineText = (v: unknown): string => {
  if (typeof v !== "string" || v.includes("\0")) throw new Error(`not a text a deferred statement can carry: ${String(v)}`);
  // Most texts (ids, JSON of plain values) hold neither: written as they are.
  return /['\\]/.test(v) ? `E'${v.replace(/\\/g, "\\\\").replace(/'/g, "''")}'` : `E'${v}'`;
};

/** A deferred statement's parameter: an array of integers or texts, or one text. */
export type DeferredParam = readonly (number | string)[] | string;

/** Deadlock detected, serialization failure: the transaction may simply run again. */
const RETRYABLE = new Set(["40P01", "40001"]);
/**
 * Unique indexes that order a record's evidence between writers who do not wait on each
 * other's contexts: two transactions that created the same record (by identity) or gave
 * the same record and source a new accepted contribution at once. The second finds the
 * first's row when it runs again, and binds or supersedes after it.
 */
const RACES = new Set(["records_identity_live", "contributions_accepted"]);
const RETRIES = 8;

/** True when a transaction lost one of the RACES: it runs again, serialized (see Sql.serialized). */
const lostRace = (err: unknown): boolean => {
  const { code, constraint_name: constraint } = err as { code?: string; constraint_name?: string };
  return code === "23505" && RACES.has(constraint ?? "");
};

/** True when a failed transaction may simply run again (see RETRYABLE and RACES). */
const retryable = (err: unknown): boolean => RETRYABLE.has((err as { code?: string }).code ?? "") || lostRace(err);

/** One statement, prepared (the repositories' SQL is a fixed set), with `?` turned into `$n`. */
export const query = <T>(client: Client, sql: string, params: readonly unknown[]): postgres.PendingQuery<postgres.Row[]> & Promise<T[]> =>
  client.unsafe(pgText(sql).text, params as Params, { prepare: true }) as unknown as postgres.PendingQuery<postgres.Row[]> & Promise<T[]>;

/**
 * The store's executor on PostgreSQL: each statement on a pooled connection. A write
 * outside a transaction becomes a short one, so it announces itself like any other. Every
 * statement and transaction goes through the pool's `use` (a bounded wait for a slot, a
 * 503 when the database is gone).
 */
export function pgRootSql(pool: PgPool, sink: CommitSink, groups?: GroupSlot): Sql {
  const memo = new Map<string, unknown>();
  /**
   * One attempt at a transaction, on a reserved connection: BEGIN is sent without waiting
   * for its answer (the body's first statements follow it on the wire), and the NOTIFY of
   * what the transaction announces goes with COMMIT, so a transaction costs its body's
   * round trips plus one. A read-only snapshot does not even wait for its COMMIT: its reads
   * are done, and the connection is handed back once the COMMIT has run.
   */
  const once = async <T>(fn: (tx: Sql) => Promise<T>, options: TxOptions, serialized = false): Promise<T> => {
    let announced: Set<Announcement> | undefined;
    const result = await pool.use(async (client) => {
      const conn = await client.reserve();
      let release = true;
      const tx = new PgTx(conn, memo, undefined, !options.readOnly, serialized);
      try {
        const begun = conn.unsafe(options.readOnly ? "BEGIN READ ONLY ISOLATION LEVEL REPEATABLE READ" : "BEGIN");
        begun.catch(() => undefined);
        let value: T;
        try {
          value = await fn(tx);
        } finally {
          tx.end();
        }
        await begun;
        if (options.readOnly) {
          // Nothing to keep: the connection goes back once its COMMIT has run (a failure of
          // which loses nothing). Statements of the next user queue behind it on the wire.
          release = false;
          conn.unsafe("COMMIT").then(
            () => conn.release(),
            () => conn.release(),
          );
          return value;
        }
        const announce = tx.announced();
        const last = tx.lastStatements();
        let committed: unknown;
        if (last !== undefined) {
          // One message: the deferred statements, the NOTIFY and the COMMIT run one after the
          // other in the server, with nothing of this process in between (see PgTx.atCommit).
          // (A failure of a statement the body did not wait for is what made these fail.)
          const results = (await conn.unsafe(`${last}${announce.size > 0 ? `${notifyText(announce)}; ` : ""}COMMIT`).catch((err: unknown) => {
            throw tx.failure ?? err;
          })) as unknown as unknown[];
          committed = results[results.length - 1];
        } else {
          const notify = announce.size > 0 ? conn.unsafe(NOTIFY, [[...announce]] as Params, { prepare: true }) : undefined;
          notify?.catch(() => undefined);
          [, committed] = await Promise.all([notify, conn.unsafe("COMMIT")]);
        }
        // A statement the body did not wait for failed: PostgreSQL aborted the transaction and
        // answers COMMIT with ROLLBACK. Nothing of it was kept; the statement's error says why.
        if ((committed as unknown as { command?: string }).command !== "COMMIT") throw tx.failure ?? new Error("the transaction was rolled back by the database");
        announced = announce;
        return value;
      } catch (err) {
        // Undone at once; a lost connection rolled back by itself.
        await conn.unsafe("ROLLBACK").catch(() => undefined);
        throw err;
      } finally {
        if (release) conn.release();
      }
    });
    if (announced) sink.committed(announced);
    return result;
  };
  const root: Sql = {
    dialect: postgresDialect,
    memo,
    all: <T>(text: string, params: readonly unknown[] = []) => {
      if (pgText(text).write) return root.tx((tx) => tx.all<T>(text, params));
      // In a write group a read must see the group's writes, as on SQLite's one connection.
      const group = groups?.current;
      return group ? group.read<T>(text, params) : pool.use((client) => query<T>(client, text, params));
    },
    get: async <T>(text: string, params: readonly unknown[] = []) => (await root.all<T>(text, params))[0],
    run: (text, params = []) => root.tx((tx) => tx.run(text, params)),
    async tx<T>(fn: (tx: Sql) => Promise<T>, options: TxOptions = {}): Promise<T> {
      // In a write group every transaction is a savepoint of the group's (see pg-write-group).
      const group = groups?.current;
      if (group) return group.call(fn);
      // Once it lost a race for a record's evidence, a transaction runs again holding its
      // contexts against every writer: under many writers of the same records, each run
      // again side by side could lose to yet another one, up to the last retry (a 500).
      let serialized = false;
      for (let attempt = 1; ; attempt++) {
        try {
          return await once(fn, options, serialized);
        } catch (err) {
          // Two nodes' transactions that locked rows in crossing orders, a snapshot conflict,
          // or two writers of one record: PostgreSQL aborted one, which runs again from the start.
          if (!retryable(err)) throw err;
          serialized ||= lostRace(err);
          if (attempt >= RETRIES) throw asDatabaseUnavailable(err) ?? err;
        }
      }
    },
    // Outside a transaction a signal is sent at once (a release of a claim, say).
    signal: (s) => {
      sink.committed(new Set<Announcement>([s]));
      pool.client.unsafe(NOTIFY, [[s]] as Params, { prepare: true }).catch(() => undefined);
    },
  };
  return root;
}

/**
 * Runs `fn` in a savepoint named `name` on a reserved connection, rolled back if it throws.
 * `guard` throws once the connection is lost: nothing more is sent on it then. SAVEPOINT is
 * not waited for: `fn`'s first statements follow it on the wire.
 */
async function savepoint<T>(conn: postgres.ReservedSql, name: string, fn: () => Promise<T>, guard: () => void = () => undefined): Promise<T> {
  const send = async (text: string) => {
    guard();
    await conn.unsafe(text);
  };
  const begun = send(`SAVEPOINT ${name}`);
  begun.catch(() => undefined);
  try {
    const result = await fn();
    await begun;
    await send(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (err) {
    await begun.catch(() => undefined);
    await send(`ROLLBACK TO SAVEPOINT ${name}`);
    await send(`RELEASE SAVEPOINT ${name}`);
    throw err;
  }
}

/** The write group open on a store, if any (see pg-write-group.ts). */
export interface GroupSlot {
  readonly current: OpenGroup | undefined;
}

/** What the root executor asks of an open write group. */
export interface OpenGroup {
  /** Runs `fn` as a savepoint of the group's transaction, after the calls before it. */
  call<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** A read on the group's connection (it sees the group's writes). */
  read<T>(text: string, params: readonly unknown[]): Promise<T[]>;
}

/**
 * An open transaction or savepoint on its connection. Statements issued together (not
 * awaited one by one) are pipelined by the driver. A savepoint must finish before its
 * parent runs anything else.
 */
export class PgTx implements Sql {
  readonly dialect = postgresDialect;
  private wrote = false;
  private signals: Set<Signal> | undefined;
  private open = true;
  private childOpen = false;
  /** The first statement of this transaction that failed (its error), if any. */
  failure: unknown;
  /** Statements that run last, in the same message as the COMMIT (see atCommit). */
  private deferred: string[] | undefined;

  constructor(
    private readonly t: postgres.TransactionSql | postgres.ReservedSql,
    readonly memo: Map<string, unknown>,
    /** Throws when the connection must not be used any more (a write group's, once lost). */
    private readonly guard?: () => void,
    /** A transaction of its own (not a savepoint, not a write group's call): it may defer statements to its COMMIT. */
    private readonly topLevel = false,
    /** See Sql.serialized. */
    readonly serialized = false,
  ) {}

  /** True when this transaction can defer statements to its COMMIT (see atCommit). */
  get defers(): boolean {
    return this.topLevel && this.open;
  }

  /**
   * Runs `text` as one of the transaction's last statements, in the same message as its
   * COMMIT (the simple protocol runs them one after the other), so the row locks it takes
   * last from its execution to the end of the commit, with no work of this process and no
   * round trip in between, however slowly this process runs (a node held to a share of a
   * core can be paused for tens of milliseconds between two writes to its socket). Its
   * parameters (arrays of integers or texts, or a text) are written into the text. Its outcome is the transaction's:
   * a failure rolls the whole transaction back. False where a transaction cannot defer (a
   * savepoint, a call of a write group): run the statement now instead.
   */
  atCommit(text: string, params: readonly DeferredParam[]): boolean {
    if (!this.defers) return false;
    this.check(text);
    let i = 0;
    const inlined = text.replace(/\?/g, () => {
      const p = params[i++] ?? [];
      return typeof p === "string" ? inlineText(p) : inlineArray(p);
    });
    if (i !== params.length) throw new Error(`a deferred statement has ${i} placeholders for ${params.length} parameters`);
    (this.deferred ??= []).push(inlined);
    return true;
  }

  /** The deferred statements as the start of the COMMIT's message ("…; …; "), or undefined when there are none. */
  lastStatements(): string | undefined {
    const last = this.deferred;
    this.deferred = undefined;
    return last && last.length > 0 ? `${last.join("; ")}; ` : undefined;
  }

  end(): void {
    this.open = false;
  }

  /** What the commit will announce: `change` when anything was written, and the signals. */
  announced(): Set<Announcement> {
    const out = new Set<Announcement>(this.signals ?? []);
    if (this.wrote) out.add("change");
    return out;
  }

  private check(text: string): void {
    this.guard?.();
    if (!this.open) throw new Error("this transaction has ended; its executor cannot run statements any more");
    if (this.childOpen) throw new Error("a statement ran on a transaction while a savepoint of it was open");
    if (pgText(text).write) this.wrote = true;
  }

  all<T>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    try {
      this.check(text);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.track(query<T>(this.t, text, params));
  }

  /**
   * Remembers the first failure of a statement (a statement whose promise nobody awaited
   * must not end the process as an unhandled rejection; its transaction fails instead).
   */
  private track<T>(p: Promise<T>): Promise<T> {
    p.catch((err: unknown) => void (this.failure ??= err));
    return p;
  }

  async get<T>(text: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.all<T>(text, params))[0];
  }

  async run(text: string, params: readonly unknown[] = []): Promise<number> {
    this.check(text);
    const result = await this.track(query(this.t, text, params));
    return (result as unknown as { count: number }).count;
  }

  async tx<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    if (!this.open) throw new Error("this transaction has ended; its executor cannot run statements any more");
    if (this.childOpen) throw new Error("a savepoint was opened while another savepoint of the same transaction was open");
    this.guard?.();
    this.childOpen = true;
    const body = async (sp: postgres.TransactionSql | postgres.ReservedSql): Promise<T> => {
      const child = new PgTx(sp, this.memo, this.guard, false, this.serialized);
      try {
        const result = await fn(child);
        // Kept only when the savepoint is released: a rolled-back one announces nothing.
        if (child.wrote) this.wrote = true;
        for (const s of child.signals ?? []) this.signal(s);
        return result;
      } finally {
        child.end();
      }
    };
    try {
      // A write group's connection is a reserved one, without the driver's savepoints.
      // (A nested savepoint may reuse a name: RELEASE and ROLLBACK TO take the newest.)
      return "savepoint" in this.t ? ((await this.t.savepoint(body)) as T) : await savepoint(this.t, "dds_sp", () => body(this.t), this.guard);
    } finally {
      this.childOpen = false;
    }
  }

  signal(s: Signal): void {
    (this.signals ??= new Set()).add(s);
  }
}
