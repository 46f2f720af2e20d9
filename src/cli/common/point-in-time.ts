import { errors } from "../../contract/errors.js";
import { parseDuration } from "../../util/duration.js";

/** `--since 2h` (that long before `now`) or `--since 2026-01-31T12:00:00Z`, as an ISO timestamp. */
export function pointInTime(text: string, flag: string, now = Date.now()): string {
  const ago = parseDuration(text);
  if (ago !== undefined) return new Date(now - ago).toISOString();
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(Date.parse(text))) return new Date(text).toISOString();
  throw errors.usage(`${flag} ${text}: use a duration ago (2h, 3d) or an ISO 8601 time (2026-01-31T12:00:00Z)`);
}
