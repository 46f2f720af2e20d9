import ms from "ms";

/**
 * Parses a duration: `30s`, `500ms`, `2m`, `1h`, `1.5h`, `2 days` (the `ms` package's
 * syntax), or a bare number of seconds. Returns milliseconds, or undefined when the text
 * is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // ms() returns undefined (typed as number) for text it cannot read.
  const value = ms(trimmed as ms.StringValue) as number | undefined;
  return value === undefined || !Number.isFinite(value) || value < 0 ? undefined : Math.round(value);
}
