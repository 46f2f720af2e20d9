import type Database from "better-sqlite3";
import type { Row } from "../sql.js";
import { isoTime, uuidString } from "../values.js";

const MAX_STATEMENTS = 2000;

/** A prepared statement and how to turn its rows into the port's forms. */
export interface Prepared {
  stmt: Database.Statement;
  /** Rewrites a row in place; undefined when no column needs it (or the statement returns none). */
  decode: ((row: Row) => void) | undefined;
}

type Decoder = (value: unknown) => unknown;

// The declared types of schema/columns.ts whose stored form is not the API's.
const DECODERS: Record<string, Decoder> = {
  UUID: (v) => (v instanceof Uint8Array && v.length === 16 ? uuidString(v) : v),
  TIMESTAMP: (v) => (typeof v === "number" ? isoTime(v) : typeof v === "bigint" ? isoTime(Number(v)) : v),
  BOOLEAN: (v) => (v === null ? null : v !== 0 && v !== 0n),
  DIGEST: (v) => (v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex") : v),
};

/**
 * How a statement's rows are decoded: by the declared type of each result column that is
 * a plain column (an expression has none and keeps its SQLite value).
 */
function decoderOf(stmt: Database.Statement): Prepared["decode"] {
  if (!stmt.reader) return undefined;
  const steps: [string, Decoder][] = [];
  for (const col of stmt.columns()) {
    const decode = col.type ? DECODERS[col.type.toUpperCase()] : undefined;
    if (decode) steps.push([col.name, decode]);
  }
  if (steps.length === 0) return undefined;
  return (row) => {
    for (const [name, decode] of steps) {
      const v = row[name];
      if (v !== null && v !== undefined) row[name] = decode(v);
    }
  };
}

/**
 * Caches prepared statements per connection: preparing is far costlier than running, and
 * the ingest path runs the same few statements hundreds of thousands of times.
 */
export function statementCache(raw: Database.Database): (sql: string) => Prepared {
  const cache = new Map<string, Prepared>();
  return (sql: string): Prepared => {
    let p = cache.get(sql);
    if (!p) {
      // Texts are a fixed set plus list queries by filter and sort: a bound, not a design.
      if (cache.size >= MAX_STATEMENTS) cache.clear();
      const stmt = raw.prepare(sql);
      p = { stmt, decode: decoderOf(stmt) };
      cache.set(sql, p);
    }
    return p;
  };
}

/** Every row of a prepared statement, decoded. */
export function allRows<T>(p: Prepared, params: readonly unknown[]): T[] {
  const rows = p.stmt.all(params) as Row[];
  if (p.decode) for (const r of rows) p.decode(r);
  return rows as T[];
}

/** The first row of a prepared statement, decoded, or undefined. */
export function firstRow<T>(p: Prepared, params: readonly unknown[]): T | undefined {
  const row = p.stmt.get(params) as Row | undefined;
  if (row && p.decode) p.decode(row);
  return row as T | undefined;
}
