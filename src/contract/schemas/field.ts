import { z } from "zod";
import { FIELD_TYPES, RESOLUTION_POLICIES, SOURCE_TYPES } from "../constants.js";
import { Id, SegmentName, Timestamp } from "./common.js";

/** Field types of docs/resources.md. */
export const FieldType = z.enum(FIELD_TYPES);
export type FieldType = z.infer<typeof FieldType>;

/** Resolution policies of docs/resources.md. */
export const ResolutionPolicy = z.enum(RESOLUTION_POLICIES);
export type ResolutionPolicy = z.infer<typeof ResolutionPolicy>;

/** Source types a contribution may name (docs/resources.md). */
export const SourceType = z.enum(SOURCE_TYPES);
export type SourceType = z.infer<typeof SourceType>;

/** Validation rules; which apply depends on the field type (checked by the engine). */
export const FieldValidation = z.strictObject({
  min: z.union([z.number(), z.string()]).optional(),
  max: z.union([z.number(), z.string()]).optional(),
  minLength: z.number().int().nonnegative().optional(),
  maxLength: z.number().int().nonnegative().optional(),
  pattern: z.string().optional(),
  values: z.array(z.union([z.string(), z.number(), z.boolean()])).optional(),
});
export type FieldValidation = z.infer<typeof FieldValidation>;

/** How competing contributions are resolved into one value. */
export const FieldResolution = z.strictObject({
  policy: ResolutionPolicy,
  sourcePriority: z.array(SourceType).optional(),
  minConfidence: z.number().min(0).max(1).optional(),
});
export type FieldResolution = z.infer<typeof FieldResolution>;

/** A computed field: a JSON Logic expression over the record's fields and relationships. */
export const FieldComputed = z.strictObject({
  expression: z.unknown(),
});
export type FieldComputed = z.infer<typeof FieldComputed>;

/** Body of POST /models/{id}/fields, of PUT on a field, and an item of a model's `fields`. */
export const FieldInput = z.strictObject({
  name: SegmentName,
  type: FieldType,
  description: z.string().max(2000).nullish(),
  required: z.boolean().optional(),
  validation: FieldValidation.nullish(),
  resolution: FieldResolution.nullish(),
  computed: FieldComputed.nullish(),
});
export type FieldInput = z.infer<typeof FieldInput>;

/** A field as the API returns it. */
export const Field = z.object({
  fieldId: Id,
  modelId: Id,
  name: z.string(),
  type: FieldType,
  description: z.string(),
  required: z.boolean(),
  validation: FieldValidation.nullable(),
  resolution: FieldResolution,
  computed: FieldComputed.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Field = z.infer<typeof Field>;

export { FIELD_TYPES, RESOLUTION_POLICIES, SOURCE_TYPES };
