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

/**
 * A duration rounded to its largest unit: in words (`5 days`, `2 hours`), or short as
 * `parseDuration` reads it back (`5d`, `2h`, `500ms`).
 */
export function formatDuration(milliseconds: number, style: "long" | "short" = "long"): string {
  return ms(Math.round(milliseconds), { long: style === "long" });
}

/**
 * Parses comma-separated durations (`5s,1m,2h`), each as {@link parseDuration} reads it.
 * Undefined when any part is not a duration, or there is none.
 */
export function parseDurationList(text: string): number[] | undefined {
  const parts = text.split(",").map((p) => p.trim());
  if (parts.some((p) => p === "")) return undefined;
  const values = parts.map(parseDuration);
  return values.every((v): v is number => v !== undefined) ? values : undefined;
}
