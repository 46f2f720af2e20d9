import type { Field, Model } from "../../contract/schemas/index.js";
import type { Column, Output } from "../output/output.js";

/** Status colouring shared by models, contexts and rules. */
export function statusStyle(out: Output) {
  return (text: string): string =>
    text === "active" || text === "resolved" ? out.c.green(text) : text === "archived" || text === "stale" ? out.c.yellow(text) : text;
}

/** Columns of the model list. */
export function modelColumns(out: Output): Column<Model>[] {
  return [
    { header: "NAME", get: (m) => m.name },
    { header: "STATUS", get: (m) => m.status, style: statusStyle(out) },
    { header: "VERSION", get: (m) => m.version },
    { header: "FIELDS", get: (m) => m.fields.length },
    { header: "IDENTITY", get: (m) => m.identity.join(",") || "(singleton)" },
    { header: "MODEL ID", get: (m) => m.modelId },
  ];
}

/** Columns of a field list. */
export function fieldColumns(): Column<Field>[] {
  return [
    { header: "NAME", get: (f) => f.name },
    { header: "TYPE", get: (f) => f.type },
    { header: "REQUIRED", get: (f) => (f.required ? "yes" : "") },
    { header: "POLICY", get: (f) => (f.computed ? "computed" : f.resolution.policy) },
    { header: "VALIDATION", get: (f) => (f.validation ? JSON.stringify(f.validation) : "") },
    { header: "FIELD ID", get: (f) => f.fieldId },
  ];
}

/** Renders one model: its properties, then its fields and relationships. */
export async function renderModel(out: Output, m: Model): Promise<void> {
  if (out.options.json) return out.json(m);
  out.fields([
    ["name", m.name],
    ["modelId", m.modelId],
    ["status", statusStyle(out)(m.status)],
    ["version", m.version],
    ["description", m.description || "-"],
    ["identity", m.identity.length > 0 ? m.identity.join(", ") : "(none: singleton, one record per context)"],
    ["relationships", m.relationships.map((r) => `${r.name} → ${r.target} (${r.cardinality})`).join(", ") || "-"],
    ["updatedAt", m.updatedAt],
  ]);
  out.line();
  await out.table(m.fields, fieldColumns());
}

/** Renders one field. */
export function renderField(out: Output, f: Field): void {
  if (out.options.json) return out.json(f);
  out.fields([
    ["name", f.name],
    ["fieldId", f.fieldId],
    ["modelId", f.modelId],
    ["type", f.type],
    ["required", f.required],
    ["description", f.description || "-"],
    ["validation", f.validation],
    ["resolution", f.resolution],
    ["computed", f.computed],
    ["updatedAt", f.updatedAt],
  ]);
}
