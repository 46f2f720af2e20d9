/** The resolve stage: every contributed field of every record, by its policy. */
import type { FieldLineage } from "../../../contract/schemas/index.js";
import type { PassContribution, PassInput } from "../types.js";
import type { Candidate } from "../../../portable/resolution/candidate.js";
import { compareRecordIds, hasOwn, indexModels, type RecordValues } from "./record-order.js";
import { resolveField } from "../../../portable/resolution/resolve-field.js";

/** A record after resolution: values by fieldId, lineage by current field name. */
export interface ResolvedFields extends RecordValues {
  lineage: Record<string, FieldLineage>;
}

/** A contribution's confidence for a field; missing or non-numeric means 1.0. */
function confidenceOf(c: PassContribution, fieldId: string): number {
  const value = hasOwn(c.confidences, fieldId) ? c.confidences[fieldId] : undefined;
  return typeof value === "number" && Number.isFinite(value) ? value : 1;
}

/**
 * Resolves every non-computed field of every record whose model has a compiled
 * definition (others are skipped). A contribution is a candidate for a field when its
 * `data` has that fieldId as an own key (a JSON null counts). Output is sorted by record
 * id; lineage keys follow field order. With `only`, just those records are resolved.
 */
export function resolveRecords(input: Pick<PassInput, "models" | "records" | "contributions">, only?: ReadonlySet<string>): ResolvedFields[] {
  const models = indexModels(input.models);
  const byRecord = new Map<string, PassContribution[]>();
  for (const c of input.contributions) {
    const list = byRecord.get(c.recordId);
    if (list) list.push(c);
    else byRecord.set(c.recordId, [c]);
  }
  const out: ResolvedFields[] = [];
  // Only those resolved are sorted: an incremental pass sorts a handful, not the context.
  const wanted = only ? input.records.filter((r) => only.has(r.id)) : [...input.records];
  for (const record of wanted.sort(compareRecordIds)) {
    const model = models.get(record.modelId);
    if (!model) continue;
    const contributions = byRecord.get(record.id) ?? [];
    const values: Record<string, unknown> = {};
    const lineage: Record<string, FieldLineage> = {};
    for (const field of model.fields) {
      if (field.computed) continue;
      const candidates: Candidate[] = [];
      for (const c of contributions) {
        if (!hasOwn(c.data, field.fieldId) || c.data[field.fieldId] === undefined) continue;
        candidates.push({
          contributionId: c.id,
          sourceId: c.sourceId,
          sourceType: c.sourceType,
          value: c.data[field.fieldId],
          confidence: confidenceOf(c, field.fieldId),
          receivedAt: c.receivedAt,
          observedAt: c.observedAt,
        });
      }
      const resolved = resolveField(field, candidates);
      if (!resolved) continue;
      values[field.fieldId] = resolved.value;
      lineage[field.name] = resolved.lineage;
    }
    out.push({ record, values, lineage });
  }
  return out;
}
