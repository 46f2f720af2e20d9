/**
 * Rate limits (docs/rest-api.md, "Rate limits"): what a request costs, and how a limit is
 * written. One cost unit for every route: a read costs 1, a write 10, a bulk 10 plus a
 * quarter of a unit per item. A limit is a budget of `quota` units that refills at `quota`
 * per `window`: at most `quota` at once (the burst), then `quota / window` per second.
 */
import { errors } from "./errors.js";

/** What one GET costs. */
export const READ_COST = 1;
/** What one POST, PATCH, PUT or DELETE costs (a bulk's base). */
export const WRITE_COST = 10;
/** Items of a bulk per unit of cost (rounded up): a bulk of 100 costs 10 + 25. */
export const BULK_ITEMS_PER_UNIT = 4;

/** The cost of a request: by method, and for a bulk by its items (`bulkItems`). */
export function requestCost(method: string, bulkItems?: number): number {
  if (method === "GET" || method === "HEAD") return READ_COST;
  return WRITE_COST + (bulkItems === undefined ? 0 : Math.ceil(bulkItems / BULK_ITEMS_PER_UNIT));
}

/** A limit: `quota` units at most at once, refilled at `quota` per `windowSeconds`. */
export interface RateSpec {
  quota: number;
  windowSeconds: number;
}

/** The longest window a limit may have (a day). */
export const MAX_WINDOW_SECONDS = 86_400;
const MAX_QUOTA = 1e12;
const UNITS: Record<string, number> = { s: 1, sec: 1, m: 60, min: 60, h: 3600, d: 86_400 };

/** Seconds of a window written `s`, `min`, `10s`, `5m`, `1h`, `1d`; undefined when unreadable. */
function windowOf(text: string): number | undefined {
  const m = /^(\d+)?\s*(s|sec|m|min|h|d)$/.exec(text.trim());
  if (!m) return undefined;
  const n = m[1] === undefined ? 1 : Number(m[1]);
  return n * UNITS[m[2]];
}

/**
 * Reads a limit as written in a flag, a variable or a setting: `<quota>/<window>` (`50000/s`,
 * `6000/10s`, `1000/1d`), or `off` / `0` for no limit (null). Anything else is a usage
 * error naming `source` (the flag or variable it came from) and saying what is allowed.
 */
export function parseRateSpec(text: string, source: string): RateSpec | null {
  const value = text.trim().toLowerCase();
  if (value === "off" || value === "0") return null;
  const m = /^(\d+)\s*\/\s*(.+)$/.exec(value);
  const quota = m ? Number(m[1]) : NaN;
  const windowSeconds = m ? windowOf(m[2]) : undefined;
  if (!m || !Number.isSafeInteger(quota) || quota < 1 || quota > MAX_QUOTA || windowSeconds === undefined || windowSeconds < 1 || windowSeconds > MAX_WINDOW_SECONDS) {
    throw errors.usage(
      `${source} "${text}": write a limit as <units>/<window>, such as 50000/s, 6000/10s or 1000/1d (a whole number of units from 1, a window of whole seconds, minutes, hours or one day at most), or off`,
    );
  }
  return { quota, windowSeconds };
}

/** A limit as `parseRateSpec` reads it back: `50000/s`, `6000/10s`, `600/min`, `off`. */
export function formatRateSpec(spec: RateSpec | null): string {
  if (!spec) return "off";
  const w = spec.windowSeconds;
  const [n, unit] = w % 86_400 === 0 ? [w / 86_400, "d"] : w % 3600 === 0 ? [w / 3600, "h"] : w % 60 === 0 ? [w / 60, "min"] : [w, "s"];
  return `${spec.quota}/${n === 1 ? "" : n}${unit}`;
}

/** The limits a server applies unless a workspace or token has its own (docs/rest-api.md says why these). */
export const DEFAULT_RATE_LIMITS: { workspace: RateSpec; token: RateSpec } = {
  workspace: { quota: 100_000, windowSeconds: 1 },
  token: { quota: 50_000, windowSeconds: 1 },
};
