/** How retries are spaced. */
export interface BackoffOptions {
  /** Delay after the first failed attempt (default 500 ms). */
  baseDelayMs: number;
  /** Longest delay between two attempts (default 1 h). */
  maxDelayMs: number;
  /** Extra delay, as a fraction of the delay, chosen at random (default 0.1). */
  jitter: number;
  /** Source of randomness in [0, 1) (tests pin it). */
  random: () => number;
}

/** The default back-off: 0.5 s, 1 s, 2 s, … capped at one hour, plus up to 10 % jitter. */
export const DEFAULT_BACKOFF: BackoffOptions = { baseDelayMs: 500, maxDelayMs: 3_600_000, jitter: 0.1, random: Math.random };

/**
 * Milliseconds to wait after the `attempts`-th failed attempt: `base * 2^(attempts-1)`,
 * capped, then stretched by a little jitter so endpoints that failed together (an outage)
 * are not hit again all at the same instant.
 */
export function retryDelayMs(attempts: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const exponent = Math.max(0, attempts - 1);
  // 2^exponent overflows to Infinity for huge attempt counts; the cap keeps it finite.
  const delay = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** exponent);
  return Math.round(delay * (1 + options.jitter * options.random()));
}
