/** The current time as ISO 8601 UTC with milliseconds (`2026-11-22T10:00:00.000Z`). */
export function nowIso(): string {
  return new Date().toISOString();
}

/**
 * Parses a duration such as `30s`, `2m`, `1h`, `500ms` or a bare number of seconds.
 * Returns milliseconds, or undefined when the text is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2] ?? "s";
  const factor = unit === "ms" ? 1 : unit === "s" ? 1000 : unit === "m" ? 60_000 : 3_600_000;
  return Math.round(n * factor);
}
