import type { Dialect } from "./sql.js";

/**
 * What a pass commit sets on the contexts it resolved (parameters: the commit's time, the
 * keys): one text for every store, and for both ways a PostgreSQL commit is made (locked
 * first, or late: see pipeline-repo.ts).
 */
export const resolvedContextsSql = (d: Dialect): string =>
  `UPDATE contexts SET freshness = 'resolved', resolved_version = evidence_version, resolved_at = ?, stale_since = NULL, claimed_by = NULL, lease_expires_at = NULL
   WHERE ${d.inKeys("id")}`;

/** What a pass commit sets on the contexts that got evidence during its pass (parameter: the keys): claimed again. */
export const staleContextsSql = (d: Dialect): string => `UPDATE contexts SET freshness = 'stale', claimed_by = NULL, lease_expires_at = NULL WHERE ${d.inKeys("id")}`;
