/** Options of {@link formatTraceValue}. */
export interface TraceValueOptions {
  /** Array items and object keys shown before `… N more`; default 5. */
  maxItems?: number;
  /** Characters of a string shown before it is cut with `…`; default 60. */
  maxLength?: number;
}

/**
 * A value as one trace line shows it: JSON-like and compact, long arrays cut with a count
 * (`[620, 700, 640, 655, 690, … 12 more]`) so a node never wraps. `undefined` (a value
 * JSON cannot carry, e.g. `and` without operands) prints as `undefined`.
 */
export function formatTraceValue(value: unknown, options: TraceValueOptions = {}): string {
  const maxItems = options.maxItems ?? 5;
  const maxLength = options.maxLength ?? 60;
  const more = (n: number) => (n > 0 ? [`… ${n} more`] : []);
  const fmt = (v: unknown): string => {
    if (v === undefined) return "undefined";
    if (typeof v === "string") return JSON.stringify(v.length > maxLength ? `${v.slice(0, maxLength)}…` : v);
    if (Array.isArray(v)) return `[${[...v.slice(0, maxItems).map(fmt), ...more(v.length - maxItems)].join(", ")}]`;
    if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      const shown = entries.slice(0, maxItems).map(([k, x]) => `${JSON.stringify(k)}: ${fmt(x)}`);
      return `{${[...shown, ...more(entries.length - maxItems)].join(", ")}}`;
    }
    return String(v);
  };
  return fmt(value);
}
