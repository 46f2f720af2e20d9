/**
 * The compute stage of an incremental pass: a computed field is computed again only for
 * the records whose inputs may have changed since the last pass (their own values, their
 * links, the values of the records they link to); every other record keeps its value.
 */
import type { CompiledModel } from "../../models/model-types.js";
import { readsOpaquely } from "../../../portable/json-logic/index.js";
import { toJsonValue } from "../../../portable/resolution/canonical-json.js";
import type { ComputedOrder } from "./computed-order.js";
import type { ExpressionCache } from "./expression-cache.js";
import type { LinkGraph } from "./link-graph.js";
import { createModelIndex } from "./model-index.js";
import type { RecordValues } from "./record-order.js";
import { createRecordResolver } from "./record-resolver.js";
import { sameValue } from "./same-values.js";

/** What an incremental compute starts from. */
export interface ComputePrior {
  /** A record's values after the last pass (computed fields included), if it had any. */
  previous(recordId: string): Record<string, unknown> | undefined;
  /** Records whose values may differ from {@link previous} before anything is computed (grown here). */
  changed: Set<string>;
  /** Records whose every computed field is computed (their values hold only their own fields). */
  fresh: ReadonlySet<string>;
  /** Records whose links differ from the last pass's. */
  relinked: ReadonlySet<string>;
}

/**
 * True when the computed fields of `models` read only what their static dependencies say,
 * each after everything it reads: no whole-data (`""`) or computed path, and a bare
 * relationship path after every computed field of its target. Then a record's computed
 * value is a function of what the dependencies name, and one whose inputs did not change
 * keeps its value; otherwise (a soft dependency dropped on a cycle reads data half
 * computed) every record is computed again.
 */
export function computesStatically(models: readonly CompiledModel[], { order }: ComputedOrder): boolean {
  const position = new Map(order.map((n, i) => [`${n.model.modelId}:${n.field.fieldId}`, i]));
  const computedOf = new Map(models.map((m) => [m.modelId, m.fields.filter((f) => f.computed).map((f) => `${m.modelId}:${f.fieldId}`)]));
  return order.every(({ model, field }, i) => {
    if (readsOpaquely(field.computed?.expression)) return false;
    return (field.computed?.deps ?? []).every(
      (dep) => dep.kind !== "relationship" || dep.fieldId !== null || (computedOf.get(dep.targetModelId) ?? []).every((k) => !position.has(k) || position.get(k)! < i),
    );
  });
}

/**
 * Computes, in the global dependency order, the computed fields of the records whose
 * inputs may have changed: fresh ones, changed ones (and each record whose value changes
 * becomes changed), relinked ones, and those linked to a changed record. Values objects are
 * copied before they are written: a record computed again gets a new one, the others keep
 * theirs (the caller's, as given). Returns the records in the order given. Only for models
 * that {@link computesStatically}; `computed` is their computedFieldOrder.
 */
export function computeChanged(
  models: readonly CompiledModel[],
  records: readonly RecordValues[],
  graph: LinkGraph,
  cache: ExpressionCache,
  prior: ComputePrior,
  { order, cyclic }: ComputedOrder,
): RecordValues[] {
  const index = createModelIndex(models);
  const copies = new Map<string, Record<string, unknown>>();
  const out = records.map((r) => {
    if (!prior.fresh.has(r.record.id)) return { record: r.record, values: r.values };
    const values = { ...r.values };
    copies.set(r.record.id, values);
    return { record: r.record, values };
  });
  const byModel = new Map<string, RecordValues[]>();
  for (const r of out) {
    let list = byModel.get(r.record.modelId);
    if (!list) byModel.set(r.record.modelId, (list = []));
    list.push(r);
  }
  const changed = prior.changed;
  const changedModels = new Set<string>();
  for (const r of out) if (changed.has(r.record.id)) changedModels.add(r.record.modelId);
  // The values a resolver reads: this pass's copies, else the last pass's.
  const values = { get: (id: string) => copies.get(id) ?? prior.previous(id) };

  for (const { model, field } of cyclic) {
    for (const r of byModel.get(model.modelId) ?? []) if (copies.has(r.record.id)) r.values[field.fieldId] = null;
  }
  for (const { model, field } of order) {
    const targets = byModel.get(model.modelId);
    if (!targets) continue;
    const relationships = model.relationships;
    const linksChanged = (id: string): boolean =>
      relationships.some((rel) => changedModels.has(rel.targetModelId) && graph.targets(id, rel.name).some((t) => changed.has(t.id)));
    const compiled = cache.get(`field:${model.modelId}:${field.fieldId}@${model.version}`, field.computed?.expression);
    for (const r of targets) {
      const id = r.record.id;
      if (!copies.has(id) && !changed.has(id) && !prior.relinked.has(id) && !linksChanged(id)) continue;
      if (!copies.has(id)) {
        r.values = { ...r.values };
        copies.set(id, r.values);
      }
      let value: unknown = null;
      if (!("error" in compiled)) {
        const evaluation = compiled.compiled.evaluate(createRecordResolver(r.record, index, graph, values));
        if (evaluation.error === undefined) value = toJsonValue(evaluation.result);
      }
      r.values[field.fieldId] = value;
      const previous = prior.previous(id);
      if (!changed.has(id) && (!previous || !Object.prototype.hasOwnProperty.call(previous, field.fieldId) || !sameValue(value, previous[field.fieldId]))) {
        changed.add(id);
        changedModels.add(model.modelId);
      }
    }
  }
  return out;
}
