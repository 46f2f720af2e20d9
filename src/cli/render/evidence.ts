import type { Contribution, RelationshipLink } from "../../contract/schemas/index.js";
import type { Column, Output } from "../output/output.js";
import { cellValue, formatValue } from "../../portable/format-value.js";

/** Model names by modelId, to show names where the API gives ids (empty: show ids). */
export type ModelNames = Map<string, string>;

/** A model cell: its name when known, else its id. */
export function modelCell(names: ModelNames | undefined, modelId: string): string {
  return names?.get(modelId) ?? modelId;
}

/** Columns of the contribution list. */
export function contributionColumns(out: Output, names?: ModelNames): Column<Contribution>[] {
  return [
    { header: "CONTRIBUTION ID", get: (c) => c.contributionId },
    { header: "MODEL", get: (c) => modelCell(names, c.modelId) },
    { header: "SOURCE", get: (c) => `${c.sourceType}:${c.sourceId}` },
    { header: "STATUS", get: (c) => c.status, style: (t) => (t === "accepted" ? out.c.green(t) : out.c.dim(t)) },
    { header: "RECORD ID", get: (c) => c.recordId, wide: true },
    { header: "DATA", get: (c) => formatValue(c.data, { maxItems: 4, maxLength: 30 }) },
    { header: "RECEIVED", get: (c) => c.receivedAt },
  ];
}

/** Renders one contribution. */
export async function renderContribution(out: Output, c: Contribution): Promise<void> {
  if (out.options.json) return out.json(c);
  out.fields([
    ["contributionId", c.contributionId],
    ["status", c.status === "accepted" ? out.c.green(c.status) : out.c.dim(c.status)],
    ["contextId", c.contextId],
    ["modelId", c.modelId],
    ["recordId", c.recordId],
    ["source", `${c.sourceType}:${c.sourceId}`],
    ["supersedes", c.supersedes],
    ["observedAt", c.observedAt],
    ["receivedAt", c.receivedAt],
    ["createdBy", c.createdBy],
  ]);
  out.line();
  const rows = Object.entries(c.data).map(([field, value]) => ({ field, value, confidence: c.fieldConfidences[field] ?? 1 }));
  await out.table(rows, [
    { header: "FIELD", get: (r) => r.field },
    { header: "VALUE", get: (r) => cellValue(r.value) },
    { header: "CONFIDENCE", get: (r) => r.confidence },
  ]);
}

/** Columns of a record's links (`relationships list <recordId>`). */
export function relationshipColumns(): Column<RelationshipLink>[] {
  return [
    { header: "NAME", get: (l) => l.relationshipName },
    { header: "TARGET RECORD", get: (l) => l.targetRecordId },
    { header: "TARGET MODEL", get: (l) => l.targetModelName || l.targetModelId },
    { header: "CREATED", get: (l) => l.createdAt },
  ];
}
