import type { RetryNotice } from "../../client/index.js";

/** How the server's rate limit has held a command back: the 429 answers its client waited on. */
export interface Throttle {
  /** Requests that waited (each 429 retried counts once). */
  waits: number;
  /** When the last one was told to wait (ms since the epoch); 0 for never. */
  lastAt: number;
  /** When the last line about it was written. */
  saidAt: number;
}

/** One line about throttling at most this often: a throttled import waits hundreds of times. */
const SAY_EVERY_MS = 5_000;
/** A command counts as throttled for this long after its last 429. */
const THROTTLED_FOR_MS = 3_000;

/** A fresh throttle record for one run. */
export function createThrottle(): Throttle {
  return { waits: 0, lastAt: 0, saidAt: 0 };
}

/**
 * Records a retry: a 429 counts as throttling and gets a line of its own at most every 5 s
 * (undefined in between), saying that the server's rate limit asked to wait and how often so
 * far; any other retry is not throttling (undefined: the caller says it as before).
 */
export function noteThrottle(t: Throttle, n: RetryNotice, now = Date.now()): string | undefined {
  if (n.status !== 429) return undefined;
  t.waits++;
  t.lastAt = now;
  if (now - t.saidAt < SAY_EVERY_MS) return "";
  t.saidAt = now;
  const asked = n.retryAfterMs !== undefined ? ` (Retry-After ${Math.round(n.retryAfterMs / 1000)} s)` : "";
  return `throttled: the server's rate limit asks ${n.method} ${n.path} to wait ${(n.waitMs / 1000).toFixed(1)} s${asked}; ${t.waits} request(s) held back so far, none lost`;
}

/** True while the server's rate limit is holding the command back (a 429 in the last 3 s). */
export function isThrottled(t: Throttle | undefined, now = Date.now()): boolean {
  return t !== undefined && t.lastAt > 0 && now - t.lastAt < THROTTLED_FOR_MS;
}
