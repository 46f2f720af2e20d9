import type { PgPool } from "./pg-pool.js";

// The evidence tables whose statistics a bulk load outgrows. Until ANALYZE has seen rows,
// the planner takes `deleted_at IS NULL` to match almost nothing and answers the ingest's
// identity lookups by scanning every record: each batch then costs more than the last.
// Once the statistics know of tens of thousands of rows the index plans stay chosen as the
// table grows, so only young tables are analyzed here (autovacuum keeps the rest).
const GROWN = `SELECT s.relname AS name FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
  WHERE s.relname IN ('records', 'contributions') AND s.schemaname = current_schema()
    AND c.reltuples < 20000 AND s.n_mod_since_analyze > GREATEST(1000, c.reltuples)`;

/**
 * After a write group: ANALYZE a young evidence table once its rows have doubled since the
 * last statistics (a handful of times in a database's life), in the background on a pooled
 * connection, at most one at a time. Autovacuum would too, but only after its next nap
 * (a minute) and 10 % growth; a first load of a new database would run quadratic until then.
 * A failure (a role that does not own the tables) only leaves it to autovacuum.
 */
export function createAnalyzer(pool: PgPool): () => void {
  let running = false;
  return () => {
    if (running) return;
    running = true;
    void (async () => {
      const grown = await pool.use((client) => client.unsafe<{ name: string }[]>(GROWN));
      // The names come from the fixed list in GROWN.
      if (grown.length > 0) await pool.use((client) => client.unsafe(`ANALYZE ${grown.map((g) => g.name).join(", ")}`));
    })()
      .catch(() => undefined)
      .finally(() => (running = false));
  };
}
