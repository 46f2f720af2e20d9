import type postgres from "postgres";
import type { PoolStats } from "../store.js";

type Settles = PromiseLike<unknown>;

/**
 * Counts what holds the pool's connections, around the driver: postgres.js keeps its
 * connection queues private and reports neither use nor waits. Each transaction (`begin`),
 * reservation (`reserve`, until `release`) and statement outside them (`unsafe`, while it
 * runs) holds one connection; what exceeds `max` waits. The driver pipelines statements on
 * busy connections rather than queueing them, so `waiting` overstates a burst of plain
 * statements, never transactions or reservations. Costs one counter update per operation.
 */
export function meterPool(client: postgres.Sql, max: number): { client: postgres.Sql; stats(): PoolStats } {
  let holders = 0;
  const release = () => {
    holders--;
  };
  /** Counts `p` from now until it settles (a begin, a reserve that failed). */
  const hold = <T extends Settles>(p: T): T => {
    holders++;
    p.then(release, release);
    return p;
  };
  /** A driver query runs when first awaited: counted from then until it settles. */
  const holdWhenRun = <T extends Settles>(q: T): T => {
    const then = q.then;
    let counted = false;
    (q as { then: Settles["then"] }).then = function (this: T, ...args: Parameters<Settles["then"]>) {
      if (!counted) {
        counted = true;
        holders++;
        then.call(q, release, release);
      }
      return then.apply(q, args);
    } as Settles["then"];
    return q;
  };
  const metered = new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop === "unsafe") return (...args: Parameters<postgres.Sql["unsafe"]>) => holdWhenRun(target.unsafe(...args));
      if (prop === "begin") return (...args: unknown[]) => hold((target.begin as (...a: unknown[]) => Promise<unknown>)(...args));
      if (prop === "reserve") {
        return async () => {
          holders++;
          try {
            const reserved = await target.reserve();
            const give = reserved.release.bind(reserved);
            let released = false;
            reserved.release = () => {
              if (!released) release();
              released = true;
              give();
            };
            return reserved;
          } catch (err) {
            release();
            throw err;
          }
        };
      }
      return value;
    },
  });
  return {
    client: metered,
    stats() {
      const inUse = Math.min(max, holders);
      return { max, inUse, idle: max - inUse, waiting: Math.max(0, holders - max) };
    },
  };
}
