/** The compute stage: computed fields of every record, in the global dependency order. */
import type { FieldLineage } from "../../../contract/schemas/index.js";
import type { CompiledModel } from "../../models/model-types.js";
import type { PassLink } from "../types.js";
import { toJsonValue } from "../../../portable/resolution/canonical-json.js";
import { computedFieldOrder } from "./computed-order.js";
import { sharedExpressionCache, type ExpressionCache } from "./expression-cache.js";
import { createLinkGraph, type LinkGraph } from "./link-graph.js";
import { createModelIndex } from "./model-index.js";
import { compareRecordIds, type RecordValues } from "./record-order.js";
import { createRecordResolver } from "./record-resolver.js";

/** The lineage of every computed field: no contribution won it. */
export function computedLineage(): FieldLineage {
  return { contributionId: null, sourceId: null, sourceType: null, confidence: null, policy: "computed", candidates: 0 };
}

/**
 * Computes every computed field of every record, dependencies first across models. A
 * field whose expression fails to compile or throws at run time, returns a value JSON
 * cannot hold (NaN, Infinity: e.g. a division by zero), or sits on a dependency cycle
 * gets null; non-finite numbers inside arrays or objects become null likewise. Returns
 * new value objects (the input is not changed), sorted by record id. `graph` is the links'
 * graph when the caller has it already.
 */
export function computeFields(
  models: readonly CompiledModel[],
  records: readonly RecordValues[],
  links: readonly PassLink[],
  cache: ExpressionCache = sharedExpressionCache,
  graph: LinkGraph = createLinkGraph(records.map((r) => r.record), links),
): RecordValues[] {
  const out = [...records]
    .sort((a, b) => compareRecordIds(a.record, b.record))
    .map((r) => ({ record: r.record, values: { ...r.values } }));
  const values = new Map(out.map((r) => [r.record.id, r.values]));
  const byModel = new Map<string, RecordValues[]>();
  for (const r of out) {
    // Appended in place: a copy per record made this quadratic in a context's records.
    let list = byModel.get(r.record.modelId);
    if (!list) byModel.set(r.record.modelId, (list = []));
    list.push(r);
  }
  const index = createModelIndex(models);
  const { order, cyclic } = computedFieldOrder(models);

  for (const { model, field } of cyclic) {
    for (const r of byModel.get(model.modelId) ?? []) r.values[field.fieldId] = null;
  }
  for (const { model, field } of order) {
    const targets = byModel.get(model.modelId);
    if (!targets) continue;
    const compiled = cache.get(`field:${model.modelId}:${field.fieldId}@${model.version}`, field.computed?.expression);
    for (const r of targets) {
      if ("error" in compiled) {
        r.values[field.fieldId] = null;
        continue;
      }
      const evaluation = compiled.compiled.evaluate(createRecordResolver(r.record, index, graph, values));
      r.values[field.fieldId] = evaluation.error === undefined ? toJsonValue(evaluation.result) : null;
    }
  }
  return out;
}
