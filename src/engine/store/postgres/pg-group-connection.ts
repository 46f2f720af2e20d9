import type postgres from "postgres";
import type { Params } from "./pg-sql.js";

/** What a write group's buffered rows ask of its connection (see pg-ingest-buffer.ts). */
export interface StatementHook {
  /** Told of every statement before it is queued; may queue work to run before it. */
  before(text: string, conn: GroupConnection): void;
}

interface Entry {
  run: () => void;
  exclusive: boolean;
}

/**
 * A write group's reserved connection, shared by its statements and the COPYs of its
 * buffered rows. Statements are sent as they come (the driver pipelines them) except
 * behind an exclusive operation: while a COPY runs the connection takes nothing else, so
 * whatever comes meanwhile waits in order and is sent once it is done. The executors of
 * the group's calls (PgTx) take this in place of the driver's connection: they only ever
 * call `unsafe`.
 */
export class GroupConnection {
  private readonly queue: Entry[] = [];
  private blocked = false;

  constructor(
    readonly raw: postgres.ReservedSql,
    /** Throws once the connection is lost: nothing more is sent on it then. */
    private readonly guard: () => void,
    private readonly hook?: StatementHook,
  ) {}

  /** A statement, as the driver's `unsafe` (what PgTx calls), queued behind exclusive work. */
  unsafe(text: string, params: Params = [], options?: postgres.UnsafeQueryOptions): Promise<postgres.RowList<postgres.Row[]>> {
    this.hook?.before(text, this);
    return this.send(() => this.raw.unsafe(text, params, options).execute());
  }

  /** Runs `send` (which sends one statement) now, or in turn after the exclusive work before it. */
  send<T>(send: () => PromiseLike<T>): Promise<T> {
    return this.enqueue(send, false);
  }

  /** Runs `op` alone on the connection: nothing is sent until it settles. */
  exclusive<T>(op: () => Promise<T>): Promise<T> {
    return this.enqueue(op, true);
  }

  private enqueue<T>(op: () => PromiseLike<T>, exclusive: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const run = () => {
        let started: PromiseLike<T>;
        try {
          this.guard();
          started = op();
        } catch (err) {
          started = Promise.reject(err);
        }
        if (!exclusive) return void started.then(resolve, reject);
        this.blocked = true;
        void Promise.resolve(started)
          .then(resolve, reject)
          .finally(() => {
            this.blocked = false;
            this.drain();
          });
      };
      if (this.blocked || this.queue.length > 0) this.queue.push({ run, exclusive });
      else run();
    });
  }

  private drain(): void {
    while (!this.blocked && this.queue.length > 0) this.queue.shift()!.run();
  }
}
