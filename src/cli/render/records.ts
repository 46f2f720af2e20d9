import type { DdsRecord } from "../../contract/schemas/index.js";
import type { Column, Output } from "../output/output.js";
import { modelCell, type ModelNames } from "./evidence.js";
import { statusStyle } from "./models.js";
import { cellValue, formatValue } from "../../portable/format-value.js";

/** Columns of a record list. */
export function recordColumns(out: Output, names?: ModelNames): Column<DdsRecord>[] {
  return [
    { header: "RECORD ID", get: (r) => r.recordId },
    { header: "MODEL", get: (r) => r.model?.name ?? modelCell(names, r.modelId) },
    { header: "FRESHNESS", get: (r) => r.freshness, style: statusStyle(out) },
    { header: "ISSUES", get: (r) => r.issues.length || "", style: (t) => (t ? out.c.yellow(t) : t) },
    { header: "DATA", get: (r) => formatValue(r.data, { maxItems: 4, maxLength: 30 }) },
    { header: "CONTEXT ID", get: (r) => r.contextId, wide: true },
    { header: "UPDATED", get: (r) => r.updatedAt, wide: true },
  ];
}

/** Field names of a record in display order: the model's order when embedded. */
export function recordFieldNames(r: DdsRecord): string[] {
  const names = r.model ? r.model.fields.map((f) => f.name) : [];
  for (const k of [...Object.keys(r.data), ...Object.keys(r.lineage ?? {})]) if (!names.includes(k)) names.push(k);
  return names;
}

/** Renders one record: its properties, its data (with lineage when included), its issues. */
export async function renderRecord(out: Output, r: DdsRecord, names?: ModelNames): Promise<void> {
  if (out.options.json) return out.json(r);
  out.fields([
    ["recordId", r.recordId],
    ["model", r.model ? `${r.model.name} v${r.model.version} (${r.modelId})` : modelCell(names, r.modelId)],
    ["contextId", r.contextId],
    ["freshness", statusStyle(out)(r.freshness)],
    ["sha256", r.sha256],
    ["createdAt", r.createdAt],
    ["updatedAt", r.updatedAt],
    ["createdBy", r.createdBy],
  ]);
  out.line();
  const lineage = r.lineage;
  const rows = recordFieldNames(r).map((field) => ({ field, value: r.data[field], l: lineage?.[field] }));
  const columns: Column<(typeof rows)[number]>[] = [
    { header: "FIELD", get: (x) => x.field },
    { header: "VALUE", get: (x) => cellValue(x.value) },
  ];
  if (lineage) {
    columns.push(
      { header: "SOURCE", get: (x) => (x.l?.sourceType ? `${x.l.sourceType}:${x.l.sourceId}` : "") },
      { header: "CONFIDENCE", get: (x) => x.l?.confidence ?? "" },
      { header: "POLICY", get: (x) => x.l?.policy ?? "" },
      { header: "CANDIDATES", get: (x) => x.l?.candidates ?? "" },
    );
  }
  await out.table(rows, columns);
  renderIssues(out, r);
}

/** Lists a record's validation issues (missing required fields, failed rules). */
export function renderIssues(out: Output, r: DdsRecord): void {
  if (r.issues.length === 0) return;
  out.line();
  out.line(out.c.yellow(`${r.issues.length} issue(s):`));
  for (const i of r.issues) out.line(`  ${i.field}: ${i.message} ${out.c.dim(`(${i.code})`)}`);
}
