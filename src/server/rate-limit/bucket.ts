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

/**
 * Milliseconds until `cost` units fit a budget that owes `owed`: 0 when they fit now,
 * Infinity when they exceed the whole quota and never fit.
 */
export function waitFor(b: Budget, owed: number, cost: number): number {
  if (cost > b.spec.quota) return Infinity;
  const over = owed + cost - b.spec.quota;
  return over <= EPSILON ? 0 : over * b.intervalMs;
}
