import type {
  FieldResolution,
  FieldType,
  FieldValidation,
  ModelStatus,
  RelationshipDecl,
} from "../../contract/schemas/index.js";

/** A field as the engine holds it (the store's row, parsed). */
export interface StoredField {
  /** The store's integer key: contributions key their values by it. */
  key: number;
  id: string;
  modelId: string;
  name: string;
  type: FieldType;
  description: string;
  required: boolean;
  validation: FieldValidation | null;
  resolution: FieldResolution | null;
  computed: { expression: unknown } | null;
  position: number;
  createdAt: string;
  updatedAt: string;
}

/** A model as the engine holds it; `identity` is kept as fieldIds so renames are free. */
export interface StoredModel {
  /** The store's integer key (records refer to it). */
  key: number;
  id: string;
  name: string;
  description: string;
  status: ModelStatus;
  version: number;
  identity: string[];
  relationships: RelationshipDecl[];
  fields: StoredField[];
  createdAt: string;
  updatedAt: string;
}

export type { CompiledDep, CompiledField } from "../../portable/resolution/compiled-field.js";
import type { CompiledDep, CompiledField } from "../../portable/resolution/compiled-field.js";

/** A relationship with its target and match fields resolved to ids. */
export interface CompiledRelationship {
  name: string;
  targetModelId: string;
  cardinality: "one" | "many";
  match: { sourceFieldId: string; targetFieldId: string } | null;
}

/** The compiled definition the pipeline runs (stored with the model on activation). */
export interface CompiledModel {
  modelId: string;
  name: string;
  version: number;
  identity: string[];
  fields: CompiledField[];
  relationships: CompiledRelationship[];
  /** Computed fieldIds in an order where every dependency comes first. */
  computedOrder: string[];
}
