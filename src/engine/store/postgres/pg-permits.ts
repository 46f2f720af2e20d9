/** A slot of the pool, held for one top-level operation. */
export interface Permit {
  release(): void;
}

/**
 * The pool's slots, counted on this side of the driver: an operation takes one before it
 * reaches the driver (whose own queue has no bound) and waits at most `waitMs` for it.
 * `oldest` says how long the longest-running holder has run, which is how a connection
 * hanging on a cut network is noticed.
 */
export function createPermits(size: number) {
  let free = size;
  const waiting: { grant: (p: Permit) => void }[] = [];
  const running = new Map<number, number>();
  let seq = 0;
  const grant = (): Permit => {
    const id = ++seq;
    const started = performance.now();
    running.set(id, started);
    let done = false;
    return {
      release() {
        if (done) return;
        done = true;
        running.delete(id);
        const next = waiting.shift();
        if (next) next.grant(grant());
        else free++;
      },
    };
  };
  return {
    size,
    /** A permit, or undefined when none came free within `waitMs`. */
    acquire(waitMs: number): Promise<Permit | undefined> | Permit {
      if (free > 0) {
        free--;
        return grant();
      }
      return new Promise((resolve) => {
        const entry = {
          grant: (p: Permit) => {
            clearTimeout(timer);
            resolve(p);
          },
        };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(entry), 1);
          resolve(undefined);
        }, waitMs);
        waiting.push(entry);
      });
    },
    /** How many permits are held, free, and waited for. */
    stats(): { max: number; inUse: number; idle: number; waiting: number } {
      return { max: size, inUse: size - free, idle: free, waiting: waiting.length };
    },
    /** Milliseconds the longest-running holder has held its permit (0 when none). */
    oldest(): number {
      let min = Infinity;
      for (const t of running.values()) if (t < min) min = t;
      return min === Infinity ? 0 : performance.now() - min;
    },
  };
}

/** The permits type. */
export type Permits = ReturnType<typeof createPermits>;
