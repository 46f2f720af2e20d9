import { connectPg } from "./pg-connect.js";
import type { PgTarget } from "./pg-target.js";
import { backoffMs, RECONNECT_BACKOFF } from "../../../util/backoff.js";
import { READ_ONLY, reasonOf, TOO_MANY_CONNECTIONS } from "../db-errors.js";

/** A probe that neither connects nor answers within this long failed. */
const PROBE_TIMEOUT_S = 5;

/** What the node knows of its database without asking it. */
export interface Availability {
  /** True from a failed probe until a probe succeeds: requests are refused at once meanwhile. */
  readonly down: boolean;
  /** Why the database is down, and since when (epoch ms). */
  readonly reason: string;
  readonly since: number;
  /** A statement failed in a way that may mean the database is gone: probe it (once at a time). */
  suspect(): void;
  /** Stops probing (the store closes). */
  close(): void;
}

/** What the monitor tells its store. */
export interface AvailabilityEvents {
  /** A probe failed: the database is unreachable (drop every connection: they may hang on a cut network). */
  onDown(reason: string): void;
  /** A probe succeeded after `downMs` of unavailability. */
  onUp(downMs: number): void;
}

/**
 * One probe: a connection of its own (the pool's may all be stuck), and a statement that
 * only a writable server answers `off` to. A server refusing for load (too many
 * connections) is up: the pool's own connections may still work.
 */
async function probe(target: PgTarget): Promise<void> {
  const sql = connectPg(target, { max: 1, fixedConnectTimeoutS: PROBE_TIMEOUT_S, driver: { fetch_types: false, idle_timeout: 1 } });
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = sql.unsafe<{ ro: string }[]>("SELECT current_setting('transaction_read_only') AS ro");
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_S} s`)), PROBE_TIMEOUT_S * 1000);
    });
    const [row] = await Promise.race([answer, timeout]);
    if (row?.ro === "on") throw Object.assign(new Error("read-only"), { code: READ_ONLY });
  } catch (err) {
    if ((err as { code?: string }).code !== TOO_MANY_CONNECTIONS) throw err;
  } finally {
    clearTimeout(timer);
    await sql.end({ timeout: 0 }).catch(() => undefined);
  }
}

/**
 * Watches a node's database: a suspicious failure starts a probe; a failed probe marks the
 * database down (the store refuses requests at once, with 503, instead of letting each
 * one find out) and probing goes on with a jittered, capped back-off until one succeeds.
 * Its probes connect to `target` as the pool's connections do.
 */
export function createAvailability(target: PgTarget, events: AvailabilityEvents): Availability {
  let down = false;
  let reason = "";
  let since = 0;
  let probing = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const round = async (attempt: number): Promise<void> => {
    if (closed) return;
    try {
      await probe(target);
    } catch (err) {
      if (closed) return;
      if (!down) {
        down = true;
        since = Date.now();
        reason = reasonOf(err);
        events.onDown(reason);
      } else reason = reasonOf(err);
      timer = setTimeout(() => void round(attempt + 1), backoffMs(attempt + 1, RECONNECT_BACKOFF));
      timer.unref();
      return;
    }
    probing = false;
    if (down && !closed) {
      down = false;
      events.onUp(Date.now() - since);
    }
  };

  return {
    get down() {
      return down;
    },
    get reason() {
      return reason;
    },
    get since() {
      return since;
    },
    suspect() {
      if (probing || closed) return;
      probing = true;
      void round(0);
    },
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}
