import type { Contribution } from "../../contract/schemas/index.js";
import type { ContributionRow } from "../store/evidence-repo.js";

/** Re-keys a fieldId-keyed object by the fields' current names. */
export function byName<T>(byId: Record<string, T>, names: Map<string, string>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [id, v] of Object.entries(byId)) out[names.get(id) ?? id] = v;
  return out;
}

/** The API shape of a contribution (data and confidences keyed by current field names). */
export function toApiContribution(row: ContributionRow, names: Map<string, string>): Contribution {
  return apiContribution(row, byName(row.data, names), byName(row.fieldConfidences, names));
}

/**
 * The API shape of a contribution from its row and its data and confidences already
 * keyed by name (ingest has them so from the checked input).
 */
export function apiContribution(
  row: Omit<ContributionRow, "key" | "data" | "fieldConfidences">,
  data: Record<string, unknown>,
  fieldConfidences: Record<string, number>,
): Contribution {
  return {
    contributionId: row.id,
    contextId: row.contextId,
    modelId: row.modelId,
    recordId: row.recordId,
    sourceId: row.sourceId,
    sourceType: row.sourceType as Contribution["sourceType"],
    data,
    fieldConfidences,
    status: row.status,
    supersedes: row.supersedes,
    observedAt: row.observedAt,
    receivedAt: row.receivedAt,
    createdBy: row.createdBy,
  };
}
