import type { Dialect } from "../sql.js";

/** `'{a,b}'`: a text-array literal of keys the caller has checked (letters, digits, `_`, `-`). */
const keyPath = (keys: readonly string[]) => `'{${keys.join(",")}}'`;

/**
 * PostgreSQL's side of the dialect: row locks exist (`FOR UPDATE`, and `SKIP LOCKED` for
 * queues shared by several nodes), JSON kept as TEXT is read as jsonb, and an
 * Idempotency-Key is locked for the rest of a transaction with an advisory lock.
 */
export const postgresDialect: Dialect = {
  name: "postgres",
  forUpdate: "FOR UPDATE",
  skipLocked: "FOR UPDATE SKIP LOCKED",
  jsonPath: (column, keys) => `((${column})::jsonb #> ${keyPath(keys)})`,
  jsonText: (column, keys) => `((${column})::jsonb #>> ${keyPath(keys)})`,
  // Bound against a jsonb expression, the driver sends the value as JSON.
  jsonValue: (value) => value,
  jsonArrayHas: (column) => `(${column})::jsonb @> jsonb_build_array(?::text)`,
  // Seed 2: the engine's transaction-scoped key lock never meets the HTTP layer's
  // session-scoped in-progress mark (seed 1) on the same key.
  lockKey: "SELECT pg_advisory_xact_lock(hashtextextended(?, 2))",
  containsText: (text) => `strpos(lower(CAST(${text} AS TEXT)), lower(?)) > 0`,
};
