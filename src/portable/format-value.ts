/** Options of {@link formatValue}. */
export interface FormatValueOptions {
  /** Array items (and object keys) shown before `… (N more)`; default 5. */
  maxItems?: number;
  /** Characters of a string shown before it is cut with `…`; default 80. */
  maxLength?: number;
  /** How the count of what was cut is written; default `… (N more)`. */
  moreLabel?: (n: number) => string;
}

/**
 * Formats a JSON value compactly for a terminal line: strings quoted, arrays and objects
 * inline, long arrays cut to `maxItems` with `… (N more)` so a trace stays one line a node.
 */
export function formatValue(value: unknown, options: FormatValueOptions = {}): string {
  const maxItems = options.maxItems ?? 5;
  const maxLength = options.maxLength ?? 80;
  const label = options.moreLabel ?? ((n: number) => `… (${n} more)`);
  const more = (n: number) => (n > 0 ? [label(n)] : []);
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

/** A table cell for a data value: strings as they are, everything else via formatValue. */
export function cellValue(value: unknown): string {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : formatValue(value);
}
