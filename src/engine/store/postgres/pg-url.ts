import { errors } from "../../../contract/errors.js";

/** Connections in a node's pool when nothing says otherwise. */
export const DEFAULT_POOL_SIZE = 10;
/** How long a statement waits for a free connection of the pool before its request is refused (503). */
export const DEFAULT_POOL_TIMEOUT_S = 5;

/** What a `postgres://` URL says to ddsctl itself, and the URL the driver gets. */
export interface PgUrlSettings {
  /** The URL without ddsctl's own parameters (the driver would send them to the server as settings). */
  driverUrl: string;
  /** `pool_size`, if the URL sets it. */
  poolSize?: number;
  /** `pool_timeout` in milliseconds, if the URL sets it. */
  poolTimeoutMs?: number;
  /** The libpq-style parameters the URL sets (`connect_timeout`, server settings…), by name. */
  params: ReadonlySet<string>;
}

/** ddsctl's own URL parameters: read here, never passed on to the server. */
const OWN = new Set(["pool_size", "pool_timeout"]);

function positive(name: string, value: string, integer: boolean): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw errors.usage(`the database URL's ${name}=${value} must be a positive ${integer ? "integer" : "number"}`);
  }
  return n;
}

/**
 * Reads ddsctl's parameters out of a PostgreSQL URL: `pool_size` (connections in this
 * process's pool) and `pool_timeout` (seconds a statement waits for one of them). Works on
 * the text, since the multi-host form (`postgres://h1:5432,h2:5432/dds?…`) is no WHATWG URL.
 */
export function parsePgUrl(url: string): PgUrlSettings {
  const q = url.indexOf("?");
  if (q < 0) return { driverUrl: url, params: new Set() };
  const hash = url.indexOf("#", q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const kept: string[] = [];
  const params = new Set<string>();
  const settings: Omit<PgUrlSettings, "driverUrl" | "params"> = {};
  for (const pair of query.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const name = decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
    const value = decodeURIComponent(eq < 0 ? "" : pair.slice(eq + 1));
    params.add(name);
    if (!OWN.has(name)) kept.push(pair);
    else if (name === "pool_size") settings.poolSize = positive(name, value, true);
    else settings.poolTimeoutMs = positive(name, value, false) * 1000;
  }
  const driverUrl = url.slice(0, q) + (kept.length > 0 ? `?${kept.join("&")}` : "");
  return { driverUrl, params, ...settings };
}
