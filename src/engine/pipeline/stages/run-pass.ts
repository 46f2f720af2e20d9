/** One resolution pass over a context, composed from the pure stages (docs/pipeline.md). */
import type { FieldLineage } from "../../../contract/schemas/index.js";
import type { PassInput, PassOutput, ResolvedRecord } from "../types.js";
import { sha256Of } from "./record-hash.js";
import { computedLineage, computeFields } from "./compute-fields.js";
import { createContextResolver } from "./context-resolver.js";
import { evaluateRules } from "./evaluate-rules.js";
import { sharedExpressionCache, type ExpressionCache } from "./expression-cache.js";
import { linkRecords } from "./link-records.js";
import { indexModels } from "./record-order.js";
import { buildRecordData } from "./record-data.js";
import { resolveRecords } from "./resolve-records.js";
import { validateValues } from "./validate-values.js";

/** Options of {@link runPass}. */
export interface RunPassOptions {
  /** Where compiled rules and computed fields are kept (default: one shared LRU). */
  cache?: ExpressionCache;
}

/**
 * Runs a pass: resolve every field by its policy, link relationships, compute computed
 * fields in dependency order, validate resolved and computed values, build data and its
 * sha256, evaluate the rules. Pure and deterministic: the same input, with its arrays in
 * any order, gives byte-identical output (records by id, links by source/name/target,
 * evaluations by rule id).
 */
export function runPass(input: PassInput, options: RunPassOptions = {}): PassOutput {
  const cache = options.cache ?? sharedExpressionCache;
  const models = indexModels(input.models);
  const resolved = resolveRecords(input);
  const links = linkRecords(input.models, resolved, input.removals);
  const computed = computeFields(input.models, resolved, links, cache);
  const lineageById = new Map(resolved.map((r) => [r.record.id, r.lineage]));

  const records: ResolvedRecord[] = [];
  for (const { record, values } of computed) {
    const model = models.get(record.modelId)!; // resolveRecords kept only records with a model
    const contributed = lineageById.get(record.id) ?? {};
    const lineage: Record<string, FieldLineage> = {};
    for (const field of model.fields) {
      if (field.computed) lineage[field.name] = computedLineage();
      else if (contributed[field.name]) lineage[field.name] = contributed[field.name];
    }
    const data = buildRecordData(model, values);
    records.push({
      id: record.id,
      modelId: record.modelId,
      data,
      sha256: sha256Of(data),
      issues: validateValues(model, values),
      lineage,
    });
  }
  const evaluations = evaluateRules(input.rules, createContextResolver(input, records, links), cache);
  return { records, links, evaluations };
}
