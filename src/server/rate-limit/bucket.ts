import type { RateSpec } from "../../contract/rate-limit.js";

/**
 * A limit as a token bucket kept as debt: a budget owes `debt` units as of `at`, and pays
 * them back continuously at one unit per `intervalMs` (quota per window). A take of `cost`
 * fits while the debt stays within the quota, so at most `quota` units pass at once (the
 * burst), then `quota / window` per second. Kept in units rather than as GCRA's single
 * time, so a limit changed on the database keeps what was spent (raising 30/d to 1000/d
 * leaves 970, not a day's wait). Pure: times are given, in milliseconds.
 */
export interface Budget {
  spec: RateSpec;
  /** Milliseconds one unit takes to pay back (window / quota). */
  intervalMs: number;
}

/** What a budget owes, and since when. */
export interface Debt {
  debt: number;
  at: number;
}

/** The budget of a limit. */
export function budgetOf(spec: RateSpec): Budget {
  return { spec, intervalMs: (spec.windowSeconds * 1000) / spec.quota };
}

/** Floating-point slack: a take that fits to within a millionth of a unit fits. */
const EPSILON = 1e-6;

/** Units owed at `now`. */
export function debtAt(b: Budget, d: Debt, now: number): number {
  return Math.max(0, d.debt - (now - d.at) / b.intervalMs);
}

/** Whole units left at `now`. */
export function remainingOf(b: Budget, owed: number): number {
  return Math.max(0, Math.floor(b.spec.quota - owed + EPSILON));
}

/** Whole seconds until the budget owes nothing (the RateLimit header's `t`). */
export function resetSeconds(b: Budget, owed: number): number {
  return Math.max(0, Math.ceil((owed * b.intervalMs) / 1000 - EPSILON));
}

/** What taking `cost` units at `now` does to a budget. */
export interface Take {
  /** The units fit now. */
  fits: boolean;
  /** The units exceed the whole quota: they never fit. */
  never: boolean;
  /** The debt at `now` before the take. */
  owed: number;
  /** The debt once they are taken (when they fit; else as it stands). */
  after: Debt;
  /** Milliseconds until they would fit (0 when they fit now; Infinity when never). */
  waitMs: number;
}

/** Taking `cost` units from a budget that owes `d`, at `now` (the caller keeps `after`). */
export function tryTake(b: Budget, d: Debt, now: number, cost: number): Take {
  const owed = debtAt(b, d, now);
  const stands = { debt: owed, at: now };
  if (cost > b.spec.quota) return { fits: false, never: true, owed, after: stands, waitMs: Infinity };
  const over = owed + cost - b.spec.quota;
  if (over <= EPSILON) return { fits: true, never: false, owed, after: { debt: owed + cost, at: now }, waitMs: 0 };
  return { fits: false, never: false, owed, after: stands, waitMs: over * b.intervalMs };
}
