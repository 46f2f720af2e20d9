/** Name lookups into compiled models, by Map so no name can reach Object internals. */
import type { CompiledField, CompiledModel, CompiledRelationship } from "../../models/model-types.js";
import { compareStrings } from "../../../portable/resolution/candidate.js";

/** A compiled model with its fields and relationships by name. */
export interface ModelInfo {
  model: CompiledModel;
  fieldsByName: Map<string, CompiledField>;
  relationshipsByName: Map<string, CompiledRelationship>;
}

/** Models by id and by name (a duplicated name goes to the smallest modelId). */
export interface ModelIndex {
  byId: Map<string, ModelInfo>;
  byName: Map<string, ModelInfo>;
}

/** Builds the lookups once per pass. */
export function createModelIndex(models: readonly CompiledModel[]): ModelIndex {
  const byId = new Map<string, ModelInfo>();
  const byName = new Map<string, ModelInfo>();
  for (const model of [...models].sort((a, b) => compareStrings(a.modelId, b.modelId))) {
    const info: ModelInfo = {
      model,
      fieldsByName: new Map(model.fields.map((f) => [f.name, f])),
      relationshipsByName: new Map(model.relationships.map((r) => [r.name, r])),
    };
    byId.set(model.modelId, info);
    if (!byName.has(model.name)) byName.set(model.name, info);
  }
  return { byId, byName };
}
