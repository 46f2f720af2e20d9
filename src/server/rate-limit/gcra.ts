import type { RateSpec } from "../../contract/rate-limit.js";

/**
 * A limit as the generic cell rate algorithm (GCRA) keeps it: a budget is one number, the
 * time at which it is full again (`fullAt`). Taking `cost` units moves that time on by
 * `cost × interval`; a take fits while the budget would still be full again within one
 * window of now. That is a token bucket of `quota` units refilled at `quota` per window,
 * kept in one number instead of a count and a refill time. Pure: times are given.
 */
export interface Budget {
  spec: RateSpec;
  /** Milliseconds one unit takes to refill (window / quota). */
  intervalMs: number;
  /** The window, in milliseconds: the most debt a budget may carry (its burst, in time). */
  windowMs: number;
}

/** The budget of a limit. */
export function budgetOf(spec: RateSpec): Budget {
  const windowMs = spec.windowSeconds * 1000;
  return { spec, intervalMs: windowMs / spec.quota, windowMs };
}

/** Floating-point slack: a take that fits to within a millionth of a unit fits. */
const EPSILON = 1e-6;

/** Units left in a budget full again at `fullAt`, at `now`. */
export function remainingOf(b: Budget, fullAt: number, now: number): number {
  const debt = Math.max(0, fullAt - now);
  return Math.max(0, Math.floor((b.windowMs - debt) / b.intervalMs + EPSILON));
}

/** Whole seconds until a budget full again at `fullAt` is full (the RateLimit header's `t`). */
export function resetSeconds(fullAt: number, now: number): number {
  return Math.max(0, Math.ceil((fullAt - now) / 1000 - EPSILON));
}

/** What taking `cost` units at `now` does to a budget. */
export interface Take {
  /** The units fit now. */
  fits: boolean;
  /** The units exceed the whole quota: they never fit. */
  never: boolean;
  /** The budget's `fullAt` once they are taken (when they fit). */
  fullAt: number;
  /** Milliseconds until they would fit (0 when they fit now; Infinity when never). */
  waitMs: number;
}

/** Taking `cost` units from a budget full again at `fullAt`, at `now` (nothing is changed: the caller keeps `fullAt`). */
export function tryTake(b: Budget, fullAt: number, now: number, cost: number): Take {
  if (cost > b.spec.quota) return { fits: false, never: true, fullAt, waitMs: Infinity };
  const after = Math.max(fullAt, now) + cost * b.intervalMs;
  const over = after - now - b.windowMs;
  return over <= EPSILON * b.intervalMs ? { fits: true, never: false, fullAt: after, waitMs: 0 } : { fits: false, never: false, fullAt, waitMs: over };
}
