import { formatDuration } from "../../util/duration.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The default waits between attempts: the first attempt at once, then 5 s, 1 min, 5 min,
 * 30 min, 2 h, 5 h, 10 h and 10 h (Svix's schedule with a 1-minute step added): 9 attempts
 * over about 27.6 hours, so a receiver down for a day still gets every event.
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

/** A schedule as `serve --webhook-schedule` spells it: `5s,1m,5m,30m,2h,5h,10h,10h`. */
export function formatSchedule(delaysMs: readonly number[]): string {
  return delaysMs.map((d) => formatDuration(d, "short")).join(",");
}

/** The default as `serve --webhook-schedule` spells it. */
export const DEFAULT_SCHEDULE_TEXT = formatSchedule(DEFAULT_RETRY_DELAYS_MS);

/** How long a receiver has to answer an attempt (default 10 s). */
export const DEFAULT_TIMEOUT_MS = 10 * SECOND;

/** How long a webhook may fail every attempt before it is disabled (default 5 days). */
export const DEFAULT_DISABLE_AFTER_MS = 5 * 24 * HOUR;

/** How retries are spaced. */
export interface RetrySchedule {
  /** The wait after the n-th failed attempt is `delaysMs[n-1]`; after the last one the delivery is `failed`. */
  delaysMs: readonly number[];
  /** Each wait is moved by up to this fraction either way, at random (default 0.1). */
  jitter: number;
  /** Source of randomness in [0, 1) (tests pin it). */
  random: () => number;
}

/** The default schedule: {@link DEFAULT_RETRY_DELAYS_MS}, ±10 % jitter. */
export const DEFAULT_SCHEDULE: RetrySchedule = { delaysMs: DEFAULT_RETRY_DELAYS_MS, jitter: 0.1, random: Math.random };

/**
 * Milliseconds to wait after the `attempts`-th failed attempt, or undefined when that was
 * the last one. Jitter spreads the retries of endpoints that failed together (an outage)
 * so they do not all come back at the same instant.
 */
export function retryDelayMs(attempts: number, schedule: RetrySchedule = DEFAULT_SCHEDULE): number | undefined {
  const base = schedule.delaysMs[attempts - 1];
  if (base === undefined) return undefined;
  return Math.max(0, Math.round(base * (1 + schedule.jitter * (2 * schedule.random() - 1))));
}

/** Attempts a delivery gets before it is `failed`: the first, then one per wait. */
export function maxAttempts(schedule: Pick<RetrySchedule, "delaysMs">): number {
  return schedule.delaysMs.length + 1;
}
