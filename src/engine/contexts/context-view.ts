import type { Context, ContextSummary } from "../../contract/schemas/index.js";
import type { ContextCounts, ContextRow } from "../store/context-repo.js";

/** The API shape of a context. */
export function toApiContext(row: ContextRow): Context {
  return {
    contextId: row.id,
    name: row.name,
    type: row.type,
    metadata: row.metadata,
    status: row.status,
    freshness: row.freshness,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    resolvedAt: row.resolvedAt,
  };
}

/**
 * Builds the `include=summary` block. Records and evaluations follow their context's
 * pipeline state, so when the context is not resolved every one of them counts as stale.
 */
export function toSummary(row: ContextRow, counts: ContextCounts): ContextSummary {
  const total = Object.values(counts.recordsByModel).reduce((a, b) => a + b, 0);
  const fresh = row.freshness === "resolved";
  return {
    records: { total, byModel: counts.recordsByModel },
    evaluations: { ...counts.evaluations, stale: fresh ? 0 : counts.evaluations.total },
    stale: { records: fresh ? 0 : total, evaluations: fresh ? 0 : counts.evaluations.total },
    lastResolvedAt: row.resolvedAt,
  };
}
