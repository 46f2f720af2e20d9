import { formatValue } from "../../format-value.js";

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
  return formatValue(value, { maxItems: options.maxItems ?? 5, maxLength: options.maxLength ?? 60, moreLabel: (n) => `… ${n} more` });
}
