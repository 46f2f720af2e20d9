import type { Dialect } from "../sql.js";
import { isUuidText } from "../values.js";
import { LIVE_WORKERS, claimHolderGone } from "./pg-claim-marks.js";
import { claimGate } from "./pg-stale-gate.js";

/** `'{a,b}'`: a text-array literal of keys the caller has checked (letters, digits, `_`, `-`). */
const keyPath = (keys: readonly string[]) => `'{${keys.join(",")}}'`;

/**
 * PostgreSQL's side of the dialect: row locks exist (`FOR UPDATE`, and `SKIP LOCKED` for
 * queues shared by several nodes), columns have native types (uuid, timestamptz, boolean,
 * bytea, json and jsonb), and an Idempotency-Key is locked for the rest of a transaction
 * with an advisory lock.
 */
export const postgresDialect: Dialect = {
  name: "postgres",
  forUpdate: "FOR UPDATE",
  forNoKeyUpdate: "FOR NO KEY UPDATE",
  forKeyShare: "FOR KEY SHARE",
  // Not FOR UPDATE: a context a bulk is writing evidence into (FOR KEY SHARE) stays claimable.
  skipLocked: "FOR NO KEY UPDATE SKIP LOCKED",
  sortOnly: (expr) => expr,
  // NULL matches nothing: a malformed id finds nothing (the uuid type would refuse it).
  uuid: (id) => (isUuidText(id) ? id.toLowerCase() : null),
  time: (t) => (t === null || t === undefined ? null : typeof t === "number" ? new Date(t).toISOString() : t),
  bool: (b) => b,
  digest: (hex) => (hex === null ? null : Buffer.from(hex, "hex")),
  epochMs: (column) => `(EXTRACT(EPOCH FROM ${column}) * 1000)::bigint`,
  timePlusMs: (expr, ms) => `(CAST(${expr} AS timestamptz) + interval '${ms} milliseconds')`,
  timeText: (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  jsonPath: (column, keys) => `((${column})::jsonb #> ${keyPath(keys)})`,
  jsonText: (column, keys) => `((${column})::jsonb #>> ${keyPath(keys)})`,
  // Bound against a jsonb expression: JSON text (the store sends JSON parameters as written).
  jsonValue: (value) => JSON.stringify(value),
  jsonArrayHas: (column) => `(${column})::jsonb @> jsonb_build_array(?::text)`,
  // Seed 2: the engine's transaction-scoped key lock never meets the HTTP layer's
  // session-scoped in-progress mark (seed 1) on the same key.
  lockKey: "SELECT pg_advisory_xact_lock(hashtextextended(?, 2))",
  containsText: (text) => `strpos(lower(CAST(${text} AS TEXT)), lower(?)) > 0`,
  inKeys: (column) => `${column} = ANY(CAST(? AS bigint[]))`,
  keyList: (keys) => keys,
  claimHolderGone,
  claimGate,
  liveWorkers: LIVE_WORKERS,
};
