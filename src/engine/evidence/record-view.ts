import type { DdsRecord, FieldLineage, RecordIssue } from "../../contract/schemas/index.js";
import type { RecordRow } from "../store/evidence-repo.js";
import { decodeLineage } from "../store/lineage-codec.js";

/** The API shape of a record (includes are added by the caller). */
export function toApiRecord(row: RecordRow): DdsRecord {
  return {
    recordId: row.id,
    modelId: row.modelId,
    contextId: row.contextId,
    freshness: row.freshness,
    sha256: row.sha256,
    data: JSON.parse(row.data) as Record<string, unknown>,
    issues: JSON.parse(row.issues) as RecordIssue[],
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    createdBy: row.createdBy,
  };
}

/** The stored lineage of a record, keyed by field name. */
export function lineageOf(row: RecordRow): Record<string, FieldLineage> {
  return decodeLineage(row.lineage);
}
