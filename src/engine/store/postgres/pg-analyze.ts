import type { PgPool } from "./pg-pool.js";

/** A table whose statistics know of this many rows keeps its index plans as it grows. */
const ADULT_ROWS = 20000;

// The evidence tables whose statistics a load outgrows. Until ANALYZE has seen rows, the
// planner takes `deleted_at IS NULL` to match almost nothing and answers the ingest's
// identity lookups by scanning every record: each batch then costs more than the last.
// Once the statistics know of tens of thousands of rows the index plans stay chosen as the
// table grows, so only young tables are analyzed here (autovacuum keeps the rest).
const TABLES = `SELECT s.relname AS name, c.reltuples >= ${ADULT_ROWS} AS adult,
    (c.reltuples < ${ADULT_ROWS} AND s.n_mod_since_analyze > GREATEST(1000, c.reltuples)) AS grown
  FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
  WHERE s.relname IN ('records', 'contributions') AND s.schemaname = current_schema()`;

/** How often, at most, a node asks whether a young evidence table has grown. */
const CHECK_MS = 1000;

/**
 * Writes of evidence tell it: a young evidence table (under ADULT_ROWS in its statistics)
 * is ANALYZEd once its rows have doubled since its last statistics, a handful of times in
 * a database's life, in the background on a pooled connection, one at a time, asked at most
 * every CHECK_MS, and never again once both tables are adult. Autovacuum would too, but only
 * after its next nap (a minute) and 10 % growth: a first load of a new database, through an
 * import or through `serve` (measured on one node: 240 bulks of 100 new records, its identity
 * lookups 0.06 ms at the start and 10–26 ms at the end, 6× the database's time for them in
 * all), would run quadratic until then. A failure (a role that does not own the tables) only
 * leaves it to autovacuum.
 */
export function createAnalyzer(pool: Pick<PgPool, "use">, now: () => number = () => performance.now()): () => void {
  let running = false;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let adult = false;
  return () => {
    if (running || adult || now() - checkedAt < CHECK_MS) return;
    running = true;
    checkedAt = now();
    void (async () => {
      const tables = await pool.use((client) => client.unsafe<{ name: string; adult: boolean; grown: boolean }[]>(TABLES));
      adult = tables.length === 2 && tables.every((t) => t.adult);
      const grown = tables.filter((t) => t.grown);
      // The names come from the fixed list in TABLES.
      if (grown.length > 0) await pool.use((client) => client.unsafe(`ANALYZE ${grown.map((g) => g.name).join(", ")}`));
    })()
      .catch(() => undefined)
      .finally(() => (running = false));
  };
}
