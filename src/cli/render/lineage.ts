import { errors } from "../../contract/errors.js";
import type { DdsRecord, Field, FieldLineage } from "../../contract/schemas/index.js";
import type { Output } from "../output.js";
import { recordFieldNames, renderIssues } from "./records.js";
import { cellValue } from "./values.js";

/** Why one field of a record has its value. */
export interface FieldExplanation {
  field: string;
  value: unknown;
  definition?: Field;
  lineage?: FieldLineage;
}

/** One explanation per field of the record (in the model's order). */
export function explainRecord(r: DdsRecord): FieldExplanation[] {
  return recordFieldNames(r).map((field) => ({
    field,
    value: r.data[field],
    definition: r.model?.fields.find((f) => f.name === field),
    lineage: r.lineage?.[field],
  }));
}

/** The policy that decided (from lineage), else the one the field is defined with. */
const policyOf = (e: FieldExplanation) => e.lineage?.policy ?? (e.definition?.computed ? "computed" : e.definition?.resolution.policy);

const source = (l?: FieldLineage) => (l?.sourceType ? `${l.sourceType}:${l.sourceId}` : l?.policy === "computed" ? "(computed)" : "-");

/**
 * `records explain`: per field, the value, the winning contribution, its source and
 * confidence, the policy and how many candidates competed. With `field`, one field in
 * detail (its resolution settings too). The record must carry lineage and model.
 */
export async function renderExplain(out: Output, r: DdsRecord, field?: string): Promise<void> {
  const all = explainRecord(r);
  if (field !== undefined) {
    const e = all.find((x) => x.field === field);
    if (!e) throw errors.notFound("field", `${field} on record ${r.recordId}`);
    if (out.options.json) return out.json(r);
    return renderFieldExplanation(out, e);
  }
  if (out.options.json) return out.json(r);
  await out.table(all, [
    { header: "FIELD", get: (e) => e.field },
    { header: "VALUE", get: (e) => cellValue(e.value) },
    { header: "WINNING CONTRIBUTION", get: (e) => e.lineage?.contributionId ?? "" },
    { header: "SOURCE", get: (e) => source(e.lineage) },
    { header: "CONFIDENCE", get: (e) => e.lineage?.confidence ?? "" },
    { header: "POLICY", get: (e) => policyOf(e) ?? "" },
    { header: "CANDIDATES", get: (e) => e.lineage?.candidates ?? 0 },
  ]);
  renderIssues(out, r);
}

/** One field's explanation as `key: value` lines. */
export function renderFieldExplanation(out: Output, e: FieldExplanation): void {
  const d = e.definition;
  out.fields([
    ["field", e.field],
    ["value", e.value === undefined ? undefined : cellValue(e.value)],
    ["type", d?.type],
    ["policy", policyOf(e)],
    ["resolution", d?.computed ? { computed: d.computed.expression } : d?.resolution],
    ["winning contribution", e.lineage?.contributionId],
    ["source", source(e.lineage)],
    ["confidence", e.lineage?.confidence],
    ["candidates", e.lineage?.candidates ?? 0],
  ]);
}
