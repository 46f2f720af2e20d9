/** A statement as PostgreSQL takes it: `$n` placeholders, and whether it writes. */
export interface PgText {
  text: string;
  write: boolean;
}

const cache = new Map<string, PgText>();
const MAX = 2000;
const WRITE = /^\s*(INSERT|UPDATE|DELETE)\b/i;

/**
 * Turns the port's `?` placeholders into `$1, $2, …` (outside quoted text and
 * identifiers), once per text. The repositories' SQL is a fixed set plus list queries by
 * filter and sort, so the cache is a bound, not a design.
 */
export function pgText(sql: string): PgText {
  let hit = cache.get(sql);
  if (hit) return hit;
  let out = "";
  let n = 0;
  let quote: string | undefined;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = undefined;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === "?") out += `$${++n}`;
    else out += ch;
  }
  hit = { text: out, write: WRITE.test(sql) };
  if (cache.size >= MAX) cache.clear();
  cache.set(sql, hit);
  return hit;
}
