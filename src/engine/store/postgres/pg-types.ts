/**
 * How the driver reads and writes PostgreSQL's types, so rows come back in the forms the
 * SQLite executor gives (see ../sql.ts): times as ISO 8601 with milliseconds, digests as
 * hex, JSON as its text (parsed by the repositories, as on SQLite), int8 as numbers.
 */

/** `2026-11-26 11:20:13.123+00` (the session's time zone is UTC) as `2026-11-26T11:20:13.123Z`. */
export function pgTimeToIso(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d+))?\+00$/.exec(text);
  if (!m) return new Date(text).toISOString();
  return `${m[1]}T${m[2]}.${(m[3] ?? "").padEnd(3, "0").slice(0, 3)}Z`;
}

/** The driver's `types` option. */
export const PG_TYPES = {
  // int8 (counts, versions, keys) as JS numbers: all fit in 2^53.
  int8: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) },
  // JSON parameters are sent as the text the repositories wrote; values read stay text.
  json: { to: 114, from: [114, 3802], serialize: (x: unknown) => (typeof x === "string" ? x : JSON.stringify(x)), parse: (x: string) => x },
  date: {
    to: 1184,
    from: [1184],
    serialize: (x: unknown) => (x instanceof Date ? x.toISOString() : typeof x === "number" ? new Date(x).toISOString() : String(x)),
    parse: pgTimeToIso,
  },
  bytea: { to: 17, from: [17], serialize: (x: Uint8Array) => `\\x${Buffer.from(x).toString("hex")}`, parse: (x: string) => x.slice(2) },
};
