import { errors } from "../../contract/errors.js";
import { parseDuration } from "../../util/duration.js";

/** Parses a duration flag (`--timeout 30s`); anything else is a usage error naming the flag. */
export function durationFlag(text: string, flag: string): number {
  const value = parseDuration(text);
  if (value === undefined) throw errors.usage(`${flag} ${text}: use a duration such as 30s, 500ms, 2m or 1h`);
  return value;
}

/** A duration flag that must be above zero (`--expires-in 90d`). */
export function positiveDuration(text: string, flag: string): number {
  const value = durationFlag(text, flag);
  if (value <= 0) throw errors.usage(`${flag} ${text}: use a duration above zero, such as 90d or 12h`);
  return value;
}
