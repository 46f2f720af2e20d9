/**
 * A contribution's value for one field, as resolution sees it, and the one tie-break
 * order every policy falls back to (docs/pipeline.md: higher confidence, then later
 * `receivedAt`, then larger contributionId).
 */
import type { SourceType } from "../../contract/schemas/index.js";

/** One contributed value competing for a field. */
export interface Candidate {
  contributionId: string;
  sourceId: string;
  sourceType: SourceType;
  value: unknown;
  confidence: number;
  receivedAt: string;
  observedAt: string | null;
}

/** Plain string order (code units), independent of locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// Date.parse dominated resolution time (tie-breaks parse inside sorts); the same few
// timestamps recur in every pass, so remember them, within a bound.
const parsedTimes = new Map<string, number>();

function timeOf(text: string): number {
  let t = parsedTimes.get(text);
  if (t === undefined) {
    t = Date.parse(text);
    if (parsedTimes.size >= 10_000) parsedTimes.clear();
    parsedTimes.set(text, t);
  }
  return t;
}

/**
 * Chronological order of two ISO timestamps. Instants are compared, so two spellings of
 * the same instant tie; unparsable text falls back to string order to stay total.
 */
export function compareTimes(a: string, b: string): number {
  if (a === b) return 0;
  const ta = timeOf(a);
  const tb = timeOf(b);
  if (Number.isFinite(ta) && Number.isFinite(tb)) return Math.sign(ta - tb);
  return compareStrings(a, b);
}

/**
 * The tie-break order: negative when `a` is preferred over `b`. Total as long as
 * contribution ids are unique, so any sort with it is independent of input order.
 */
export function compareByTieBreak(a: Candidate, b: Candidate): number {
  if (a.confidence !== b.confidence) return b.confidence - a.confidence;
  const byReceived = compareTimes(b.receivedAt, a.receivedAt);
  if (byReceived !== 0) return byReceived;
  return compareStrings(b.contributionId, a.contributionId);
}

/** When the source says the value was true: `observedAt` if given, else `receivedAt`. */
export function effectiveTime(c: Candidate): string {
  return c.observedAt ?? c.receivedAt;
}

/** The preferred element under `compare` (negative = first preferred); undefined if empty. */
export function pickBest<T>(items: readonly T[], compare: (a: T, b: T) => number): T | undefined {
  let best: T | undefined;
  for (const item of items) if (best === undefined || compare(item, best) < 0) best = item;
  return best;
}
