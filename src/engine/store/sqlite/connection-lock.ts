/**
 * A first-come, first-served lock over the one SQLite connection. Transactions are async
 * (their statements are awaited), so two of them must not interleave statements on one
 * connection, and a statement outside any transaction must not read another one's
 * uncommitted rows: each takes this lock. Free, it is taken synchronously.
 */
export class ConnectionLock {
  private held = false;
  private readonly waiters: (() => void)[] = [];

  /** True while a transaction (or a queued statement) holds the connection. */
  get busy(): boolean {
    return this.held;
  }

  /** Takes the lock: undefined when taken at once, else a promise that resolves once it is ours. */
  acquire(): Promise<void> | undefined {
    if (!this.held) {
      this.held = true;
      return undefined;
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Hands the lock to the next waiter, or frees it. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.held = false;
  }
}
