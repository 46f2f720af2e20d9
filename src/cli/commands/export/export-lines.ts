import type { Context, Contribution, DdsRecord, Evaluation, Field, Model, Rule } from "../../../contract/schemas/index.js";

/** Any exported line: a JSON object with its `kind`. */
export type ExportLine = { kind: string } & Record<string, unknown>;

/** The reference an exported line uses for its context: its name, or its id when unnamed. */
export function contextRefOf(c: Context): string {
  return c.name ?? c.contextId;
}

/** A field as the FieldInput of a POST /models body (defaults left out, for readability). */
function fieldInput(f: Field): Record<string, unknown> {
  const out: Record<string, unknown> = { name: f.name, type: f.type };
  if (f.description) out.description = f.description;
  if (f.required) out.required = true;
  if (f.validation) out.validation = f.validation;
  const r = f.resolution;
  const isDefault = r.policy === "highest_confidence" && r.sourcePriority === undefined && r.minConfidence === undefined;
  if (!f.computed && !isDefault) out.resolution = r;
  if (f.computed) out.computed = f.computed;
  return out;
}

/**
 * `{"kind": "Model", …}`: a POST /models body plus `kind` (and `"status": "draft"` for a
 * draft, as apply's documents spell it), relationship targets by name, so `apply` (or
 * `models create -f` without those two) recreates it in another database.
 */
export function modelLine(m: Model, nameOf: (ref: string) => string): ExportLine {
  const line: ExportLine = { kind: "Model", name: m.name };
  if (m.description) line.description = m.description;
  if (m.identity.length > 0) line.identity = m.identity;
  line.fields = m.fields.map(fieldInput);
  if (m.relationships.length > 0) line.relationships = m.relationships.map((r) => ({ ...r, target: nameOf(r.target) }));
  // apply activates models unless told otherwise: a draft must stay a draft.
  if (m.status === "draft") line.status = "draft";
  return line;
}

/** `{"kind": "Rule", …}`: a POST /rules body (status included) plus `kind`. */
export function ruleLine(r: Rule): ExportLine {
  const line: ExportLine = { kind: "Rule", name: r.name };
  if (r.description) line.description = r.description;
  Object.assign(line, { category: r.category, severity: r.severity, expression: r.expression });
  if (r.contextTypes.length > 0) line.contextTypes = r.contextTypes;
  line.status = r.status;
  return line;
}

/** `{"kind": "Context", "name", …}`: a POST /contexts body plus `kind`; an unnamed context is named by its id. */
export function contextLine(c: Context): ExportLine {
  const line: ExportLine = { kind: "Context", name: contextRefOf(c) };
  if (c.type !== null) line.type = c.type;
  if (Object.keys(c.metadata).length > 0) line.metadata = c.metadata;
  return line;
}

/**
 * `{"kind": "Contribution", …}`: what `import contributions` takes, naming the context
 * and model instead of their ids. No recordId: ids differ between databases, so the
 * contribution binds again by identity (`identity` fills values the data lacks).
 */
export function contributionLine(c: Contribution, contextRef: string, modelName: string, identity?: Record<string, unknown>): ExportLine {
  const data = identity ? { ...identity, ...c.data } : c.data;
  const line: ExportLine = { kind: "Contribution", contextRef, modelName, sourceId: c.sourceId, sourceType: c.sourceType, data, fieldConfidences: c.fieldConfidences };
  if (c.observedAt !== null) line.observedAt = c.observedAt;
  return line;
}

/** `{"kind": "Record", …}`: informational (read-only), the record as the API returns it. */
export function recordLine(r: DdsRecord, contextRef: string, modelName: string): ExportLine {
  return { kind: "Record", contextRef, modelName, ...r };
}

/** `{"kind": "Evaluation", …}`: informational (read-only), the evaluation as the API returns it. */
export function evaluationLine(e: Evaluation, contextRef: string): ExportLine {
  return { kind: "Evaluation", contextRef, ...e };
}

/** Orders models so relationship targets come before the models that point at them. */
export function dependencyOrder(models: Model[], idOf: (ref: string) => string | undefined): Model[] {
  const byId = new Map(models.map((m) => [m.modelId, m]));
  const done = new Set<string>();
  const out: Model[] = [];
  const visit = (m: Model, path: Set<string>) => {
    if (done.has(m.modelId) || path.has(m.modelId)) return;
    path.add(m.modelId);
    for (const r of m.relationships) {
      const target = byId.get(idOf(r.target) ?? "");
      if (target) visit(target, path);
    }
    done.add(m.modelId);
    out.push(m);
  };
  for (const m of models) visit(m, new Set());
  return out;
}
