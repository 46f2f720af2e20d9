interface Running {
  keys: ReadonlySet<string>;
  /** The scopes of its record-level keys. */
  scopes: ReadonlySet<string>;
  done: Promise<void>;
}

const ignore = () => undefined;

/** Separates the scope of a record-level order key from the record (see {@link recordOrderKey}). */
const IN_SCOPE = "\u0000";

/**
 * An order key for one record inside a scope (a context). It conflicts with the same
 * record's key, and with the scope's own key (a line that may touch any record of it), but
 * not with other records of the scope.
 */
export function recordOrderKey(scope: string, record: string): string {
  return `${scope}${IN_SCOPE}${record}`;
}

const scopeOf = (key: string): string | undefined => {
  const i = key.indexOf(IN_SCOPE);
  return i < 0 ? undefined : key.slice(0, i);
};

/**
 * Keeps up to `limit` requests in flight, with one ordering rule: a request does not
 * start while an earlier one touching the same order key (a record, or a whole context)
 * is still running. A record's evidence then lands in file order whatever the
 * concurrency, so supersession and the receivedAt tie-breaks come out as in a sequential
 * import; records of one context, told apart by their keys, go in parallel.
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
      scopes: new Set([...keys].flatMap((k) => scopeOf(k) ?? [])),
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
    for (const r of this.running) {
      for (const k of keys) {
        if (r.keys.has(k)) return true;
        // A record's key against its whole scope's key, either way round.
        const scope = scopeOf(k);
        if (scope !== undefined ? r.keys.has(scope) : r.scopes.has(k)) return true;
      }
    }
    return false;
  }
}
