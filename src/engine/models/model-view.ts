import type { Field, Model } from "../../contract/schemas/index.js";
import type { StoredField, StoredModel } from "./model-types.js";

/** The API shape of a field. */
export function toApiField(f: StoredField): Field {
  return {
    fieldId: f.id,
    modelId: f.modelId,
    name: f.name,
    type: f.type,
    description: f.description,
    required: f.required,
    validation: f.validation,
    resolution: f.resolution ?? { policy: "highest_confidence" },
    computed: f.computed,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}

/** The API shape of a model: identity as field names, full field definitions. */
export function toApiModel(m: StoredModel): Model {
  return {
    modelId: m.id,
    name: m.name,
    description: m.description,
    status: m.status,
    version: m.version,
    identity: m.identity.map((id) => m.fields.find((f) => f.id === id)?.name ?? id),
    fields: m.fields.map(toApiField),
    relationships: m.relationships,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}
