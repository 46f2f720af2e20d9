/** How retries of something that failed are spaced. */
export interface Backoff {
  /** Delay before the second attempt. */
  baseMs: number;
  /** Longest delay, however many attempts failed. */
  capMs: number;
  /** Up to this fraction of the delay is added at random (0.5: 1 to 1.5 times it). */
  jitter: number;
  /** Source of randomness in [0, 1) (tests pin it). */
  random?: () => number;
}

/**
 * Milliseconds to wait after the `attempts`-th failed attempt: `baseMs × 2^(attempts−1)`,
 * capped at `capMs`, stretched by up to `jitter` of itself at random, so processes that lost
 * the same thing at the same moment (a database restart) do not all try again together.
 */
export function backoffMs(attempts: number, b: Backoff): number {
  const delay = Math.min(b.capMs, b.baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(delay * (1 + b.jitter * (b.random ?? Math.random)()));
}

/**
 * How a node tries its database again (probes, the notification listener, a start-up that
 * waits): 0.2 s, 0.4 s, 0.8 s, then every 1.5 to 2.25 s. The cap is what keeps a node
 * serving within a few seconds of its database's return.
 */
export const RECONNECT_BACKOFF: Backoff = { baseMs: 200, capMs: 1500, jitter: 0.5 };
