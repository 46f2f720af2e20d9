import type { Dialect } from "../sql.js";
import { epochMs, uuidBytes } from "../values.js";

// A stored value SQLite cannot read (nested past its 1,000 levels, from before the depth
// limit) reads as no value: one such row must not turn every filter of the workspace into
// an error.
const path = (column: string, keys: readonly string[]) =>
  `(CASE WHEN json_valid(${column}) THEN json_extract(${column}, '$.${keys.map((k) => `"${k}"`).join(".")}') END)`;

/**
 * SQLite's side of the dialect. Row locks do not exist (a write transaction holds the
 * whole file); UUIDs are 16-byte blobs, times epoch milliseconds, booleans 0/1; JSON lives
 * in TEXT read by json_extract, which gives SQL values: true and false come back as 1 and 0.
 */
export const sqliteDialect: Dialect = {
  name: "sqlite",
  forUpdate: "",
  forNoKeyUpdate: "",
  forKeyShare: "",
  skipLocked: "",
  sortOnly: (expr) => `+${expr}`,
  // An empty blob equals no UUID: a malformed id finds nothing, as an unknown one.
  uuid: (id) => (id === null || id === undefined ? null : (uuidBytes(id) ?? Buffer.alloc(0))),
  time: (t) => (t === null || t === undefined ? null : epochMs(t)),
  bool: (b) => (b ? 1 : 0),
  digest: (hex) => (hex === null ? null : Buffer.from(hex, "hex")),
  // An expression has no declared type, so the executor leaves its value a number.
  epochMs: (column) => `(${column} + 0)`,
  timePlusMs: (expr, ms) => `(${expr} + ${ms})`,
  timeText: (column) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${column} / 1000.0, 'unixepoch')`,
  // The path is inlined (its keys are checked by the caller): SQLite needs it as a
  // literal for an expression index to be usable.
  jsonPath: path,
  jsonText: path,
  jsonValue: (value) => (typeof value === "boolean" ? (value ? 1 : 0) : value),
  jsonArrayHas: (column) => `EXISTS (SELECT 1 FROM json_each(${column}) e WHERE e.value = ?)`,
  containsText: (text) => `instr(lower(CAST(${text} AS TEXT)), lower(?)) > 0`,
  // A JSON array read by json_each: each key probes the column's index.
  inKeys: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  keyList: (keys) => JSON.stringify(keys),
};
