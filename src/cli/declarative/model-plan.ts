import type { ProblemDetail } from "../../contract/errors.js";
import type { Field, FieldInput, Model, ModelPatch } from "../../contract/schemas/index.js";
import { canonicalJson, sameJson } from "./canonical.js";
import type { LoadedDocument, ModelDocument } from "./document-schema.js";
import type { ModelSteps, PlanChange } from "./plan-types.js";

/** A field as the service stores it, so a document and a stored field compare equal. */
function normalField(f: FieldInput | Field): Record<string, unknown> {
  return {
    name: f.name,
    type: f.type,
    description: f.description ?? "",
    required: f.required ?? false,
    validation: f.validation ?? null,
    resolution: f.resolution ?? { policy: "highest_confidence" },
    computed: f.computed ?? null,
  };
}

/** The POST /models body of a document (kind and status are apply's, not the API's). */
export function modelBody(doc: ModelDocument) {
  const { kind: _kind, status: _status, ...body } = doc;
  return body;
}

/**
 * Plans one Model document against the stored model of that name (if any). New models
 * are created as drafts; existing ones get a PATCH for description and relationships
 * (identity too while a draft), and field adds, replacements and removals by name.
 * What the lifecycle forbids (changing an archived model, a field type or the identity
 * of an active model, going back to draft) is reported in `conflicts`, so nothing is
 * written for a plan that cannot finish.
 */
export function planModel(loaded: LoadedDocument<ModelDocument>, existing: Model | undefined, conflicts: ProblemDetail[]): ModelSteps {
  const { doc, source } = loaded;
  const wantActive = (doc.status ?? "active") === "active";
  const item = { kind: "Model" as const, name: doc.name, source, action: "create" as ModelSteps["item"]["action"], changes: [] as PlanChange[] };
  const steps: ModelSteps = { doc, item, addFields: [], replaceFields: [], removeFields: [], storedComputed: [], activate: wantActive };
  if (!existing) {
    steps.create = modelBody(doc);
    return steps;
  }
  Object.assign(item, { id: existing.modelId, action: "unchanged" });
  steps.storedComputed = existing.fields.filter((f) => f.computed).map((f) => f.name);
  const conflict = (message: string) => conflicts.push({ path: `${source}: Model ${doc.name}`, message });
  if (existing.status === "archived") {
    conflict("the stored model is archived and cannot change; delete it or give the document another name");
    return steps;
  }
  const patch: ModelPatch = {};
  const description = doc.description ?? "";
  if (description !== existing.description) {
    patch.description = description;
    item.changes.push({ path: "description", op: "change", from: existing.description, to: description });
  }
  const relationships = doc.relationships ?? [];
  if (!sameJson(relationships, existing.relationships)) {
    patch.relationships = relationships;
    item.changes.push({ path: "relationships", op: "change", from: existing.relationships, to: relationships });
  }
  const identity = doc.identity ?? [];
  if (!sameJson(identity, existing.identity)) {
    if (existing.status === "draft") patch.identity = identity;
    else conflict(`identity cannot change once a model is active (stored ${JSON.stringify(existing.identity)}, document ${JSON.stringify(identity)})`);
    item.changes.push({ path: "identity", op: "change", from: existing.identity, to: identity });
  }
  if (Object.keys(patch).length > 0) steps.patch = patch;
  planFields(doc, existing, steps, conflict);
  steps.activate = wantActive && existing.status !== "active";
  if (!wantActive && existing.status === "active") conflict("the stored model is active; a model cannot go back to draft");
  if (steps.activate) item.changes.push({ path: "status", op: "change", from: existing.status, to: "active" });
  if (item.changes.length > 0) item.action = "update";
  return steps;
}

/** Field adds, replacements and removals by name; a type change of an active model is a conflict. */
function planFields(doc: ModelDocument, existing: Model, steps: ModelSteps, conflict: (m: string) => void): void {
  const stored = new Map(existing.fields.map((f) => [f.name, f]));
  for (const field of doc.fields) {
    const current = stored.get(field.name);
    stored.delete(field.name);
    if (!current) {
      steps.addFields.push(field);
      steps.item.changes.push({ path: `fields.${field.name}`, op: "add", to: field });
      continue;
    }
    const from = normalField(current);
    const to = normalField(field);
    if (canonicalJson(from) === canonicalJson(to)) continue;
    if (current.type !== field.type && existing.status === "active") {
      conflict(`field ${field.name}: its type cannot change from ${current.type} to ${field.type} on an active model; add a field with a new name instead`);
    }
    steps.replaceFields.push(field);
    steps.item.changes.push({ path: `fields.${field.name}`, op: "change", from, to });
  }
  for (const name of stored.keys()) {
    if (existing.identity.includes(name)) {
      conflict(`field ${name} is part of the stored identity and cannot be removed`);
      continue;
    }
    steps.removeFields.push(name);
    steps.item.changes.push({ path: `fields.${name}`, op: "remove", from: normalField(stored.get(name)!) });
  }
}

/**
 * The order to activate models in: relationship targets before the models that point at
 * them (the compiler wants targets to exist; activating them first also means computed
 * paths through them compile against their final fields). Cycles keep document order.
 */
export function activationOrder(models: ModelSteps[]): string[] {
  const byName = new Map(models.map((m) => [m.doc.name, m]));
  const order: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (name: string) => {
    const m = byName.get(name);
    if (!m || state.has(name)) return;
    state.set(name, "visiting");
    for (const r of m.doc.relationships ?? []) visit(r.target);
    state.set(name, "done");
    if (m.activate) order.push(name);
  };
  for (const m of models) visit(m.doc.name);
  return order;
}
