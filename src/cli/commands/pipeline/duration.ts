import { errors } from "../../../contract/errors.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a duration flag: `500ms`, `30s`, `2m`, `1h`, or a bare number of seconds. */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw errors.usage(`${flag} ${text}: use a duration such as 30s, 500ms, 2m or 1h`);
  return Math.round(Number(m[1]) * UNITS[m[2] ?? "s"]);
}
