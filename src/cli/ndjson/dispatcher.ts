interface Running {
  keys: ReadonlySet<string>;
  done: Promise<void>;
}

const ignore = () => undefined;

/**
 * Keeps up to `limit` requests in flight, with one ordering rule: a request does not
 * start while an earlier one touching the same order key (a context, a record) is still
 * running. Within a context, evidence then lands in file order whatever the concurrency,
 * so supersession and the receivedAt tie-breaks come out as in a sequential import.
 */
export class Dispatcher {
  private readonly running = new Set<Running>();

  constructor(private readonly limit: number) {}

  /** Resolves once a request with these order keys may start. */
  async slot(keys: ReadonlySet<string>): Promise<void> {
    while (this.running.size >= this.limit || this.conflicts(keys)) await this.next();
  }

  /** Starts a task (after `slot`) and tracks it until it settles. */
  run<T>(keys: ReadonlySet<string>, task: () => Promise<T>): Promise<T> {
    const promise = task();
    const entry: Running = {
      keys,
      done: promise.then(ignore, ignore).then(() => {
        this.running.delete(entry);
      }),
    };
    this.running.add(entry);
    return promise;
  }

  /** Resolves when one request in flight settles (at once when none is). */
  async settled(): Promise<void> {
    if (this.running.size > 0) await this.next();
  }

  /** Resolves when nothing is in flight. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await this.next();
  }

  private next(): Promise<void> {
    return Promise.race([...this.running].map((r) => r.done));
  }

  private conflicts(keys: ReadonlySet<string>): boolean {
    if (keys.size === 0) return false;
    for (const r of this.running) for (const k of keys) if (r.keys.has(k)) return true;
    return false;
  }
}
