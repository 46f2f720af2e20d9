import type { ProblemDetail } from "../../contract/errors.js";
import { collectVarPaths } from "../../portable/json-logic/index.js";
import type { CompiledDep, CompiledModel, CompiledRelationship, StoredModel } from "./model-types.js";

/** Finds a model by id or name among the candidates (targets may be written either way). */
export function findModel(models: StoredModel[], ref: string): StoredModel | undefined {
  return models.find((m) => m.id === ref.toLowerCase()) ?? models.find((m) => m.name === ref);
}

function resolveDeps(model: StoredModel, models: StoredModel[], expression: unknown, path: string, problems: ProblemDetail[]): CompiledDep[] {
  const deps: CompiledDep[] = [];
  for (const varPath of collectVarPaths(expression)) {
    const [head, ...rest] = varPath.split(".");
    const own = model.fields.find((f) => f.name === head);
    if (own && rest.length === 0) {
      deps.push({ kind: "field", path: varPath, fieldId: own.id });
      continue;
    }
    const rel = model.relationships.find((r) => r.name === head);
    const target = rel ? findModel(models, rel.target) : undefined;
    if (rel && target && rest.length <= 1) {
      const tf = rest.length === 1 ? target.fields.find((f) => f.name === rest[0]) : undefined;
      if (rest.length === 1 && !tf) {
        problems.push({ path, message: `"${varPath}": model ${target.name} has no field "${rest[0]}"` });
        continue;
      }
      deps.push({ kind: "relationship", path: varPath, relationship: rel.name, targetModelId: target.id, fieldId: tf?.id ?? null });
      continue;
    }
    problems.push({
      path,
      message: rel
        ? `"${varPath}": paths through a relationship name one field of its target (relationship.field)`
        : `"${varPath}" is neither a field nor a relationship of ${model.name}`,
    });
  }
  return deps;
}

/**
 * Compiles `model` for the pipeline against the other models of the workspace: computed
 * expressions must reference existing fields or relationship paths, relationship targets
 * and match fields must exist, identity fields must exist and not be computed, and no
 * computed field may depend on itself, also across models through relationships.
 */
export function compileModel(model: StoredModel, models: StoredModel[]): { compiled?: CompiledModel; problems: ProblemDetail[] } {
  const problems: ProblemDetail[] = [];
  const all = [model, ...models.filter((m) => m.id !== model.id)];
  const relationships: CompiledRelationship[] = [];
  model.relationships.forEach((r, i) => {
    const target = findModel(all, r.target);
    if (!target) {
      problems.push({ path: `relationships.${i}.target`, message: `target model "${r.target}" does not exist` });
      return;
    }
    let match: CompiledRelationship["match"] = null;
    if (r.match) {
      const sf = model.fields.find((f) => f.name === r.match!.sourceField);
      const tf = target.fields.find((f) => f.name === r.match!.targetField);
      if (!sf) problems.push({ path: `relationships.${i}.match.sourceField`, message: `"${r.match.sourceField}" is not a field of ${model.name}` });
      if (!tf) problems.push({ path: `relationships.${i}.match.targetField`, message: `"${r.match.targetField}" is not a field of ${target.name}` });
      if (sf && tf) match = { sourceFieldId: sf.id, targetFieldId: tf.id };
    }
    relationships.push({ name: r.name, targetModelId: target.id, cardinality: r.cardinality, match });
  });
  model.identity.forEach((fieldId, i) => {
    const f = model.fields.find((x) => x.id === fieldId);
    if (!f) problems.push({ path: `identity.${i}`, message: "identity field no longer exists" });
    else if (f.computed) problems.push({ path: `identity.${i}`, message: `identity field "${f.name}" is computed` });
  });
  const fields = model.fields.map((f, i) => ({
    fieldId: f.id,
    name: f.name,
    type: f.type,
    required: f.required,
    validation: f.validation,
    resolution: {
      policy: f.resolution?.policy ?? "highest_confidence",
      minConfidence: f.resolution?.minConfidence ?? 0,
      ...(f.resolution?.sourcePriority ? { sourcePriority: f.resolution.sourcePriority } : {}),
    },
    computed: f.computed
      ? { expression: f.computed.expression, deps: resolveDeps(model, all, f.computed.expression, `fields.${i}.computed.expression`, problems) }
      : null,
  }));
  const order = computedOrder(model, all, problems);
  if (problems.length > 0) return { problems };
  return {
    problems,
    compiled: { modelId: model.id, name: model.name, version: model.version, identity: model.identity, fields, relationships, computedOrder: order },
  };
}

/** Topologically orders computed fields across models; reports cycles through `model`. */
function computedOrder(model: StoredModel, all: StoredModel[], problems: ProblemDetail[]): string[] {
  const graph = new Map<string, string[]>();
  const label = new Map<string, string>();
  for (const m of all) {
    for (const f of m.fields) {
      if (!f.computed) continue;
      const key = `${m.id}:${f.id}`;
      label.set(key, `${m.name}.${f.name}`);
      const scratch: ProblemDetail[] = [];
      const deps = resolveDeps(m, all, f.computed.expression, "", scratch)
        .map((d) => (d.kind === "field" ? `${m.id}:${d.fieldId}` : d.fieldId ? `${d.targetModelId}:${d.fieldId}` : ""))
        .filter((k) => k !== "");
      graph.set(key, deps);
    }
  }
  const state = new Map<string, 1 | 2>();
  const order: string[] = [];
  const reported = new Set<string>();
  const visit = (key: string, stack: string[]): void => {
    if (state.get(key) === 2 || !graph.has(key)) return;
    if (state.get(key) === 1) {
      const cycle = [...stack.slice(stack.indexOf(key)), key];
      if (cycle.some((k) => k.startsWith(`${model.id}:`))) {
        const text = cycle.map((k) => label.get(k)).join(" → ");
        if (!reported.has(text)) problems.push({ path: "fields", message: `computed fields form a cycle: ${text}` });
        reported.add(text);
      }
      return;
    }
    state.set(key, 1);
    for (const dep of graph.get(key) ?? []) visit(dep, [...stack, key]);
    state.set(key, 2);
    order.push(key);
  };
  for (const key of graph.keys()) visit(key, []);
  return order.filter((k) => k.startsWith(`${model.id}:`)).map((k) => k.slice(model.id.length + 1));
}
