import type Database from "better-sqlite3";

const MAX_STATEMENTS = 2000;

/**
 * Caches prepared statements per connection: preparing is far costlier than running, and
 * the ingest path runs the same few statements hundreds of thousands of times.
 */
export function statementCache(raw: Database.Database): (sql: string) => Database.Statement {
  const cache = new Map<string, Database.Statement>();
  return (sql: string): Database.Statement => {
    let s = cache.get(sql);
    if (!s) {
      // Texts are a fixed set plus list queries by filter and sort: a bound, not a design.
      if (cache.size >= MAX_STATEMENTS) cache.clear();
      s = raw.prepare(sql);
      cache.set(sql, s);
    }
    return s;
  };
}
