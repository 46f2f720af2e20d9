import type { FieldResolution, FieldType, FieldValidation } from "../../contract/schemas/index.js";

/** Where a computed field (or rule) reads a value from. */
export type CompiledDep =
  | { kind: "field"; path: string; fieldId: string }
  | { kind: "relationship"; path: string; relationship: string; targetModelId: string; fieldId: string | null };

/** A field as the pipeline uses it: resolution defaults filled in. */
export interface CompiledField {
  fieldId: string;
  name: string;
  type: FieldType;
  required: boolean;
  validation: FieldValidation | null;
  resolution: Required<Pick<FieldResolution, "policy" | "minConfidence">> & Pick<FieldResolution, "sourcePriority">;
  computed: { expression: unknown; deps: CompiledDep[] } | null;
}
