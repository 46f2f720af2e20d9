import { z } from "zod";
import { MODEL_STATUSES } from "../constants.js";
import { Id, SegmentName, Timestamp } from "./common.js";
import { Field, FieldInput } from "./field.js";

export const ModelStatus = z.enum(MODEL_STATUSES);
export type ModelStatus = z.infer<typeof ModelStatus>;

/** A relationship slug: lowercase letters, digits, `_` and `-`, starting with a letter. */
export const RelationshipName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,62}$/, "must be a slug: lowercase letters, digits, '_' or '-', starting with a letter");

/** Relationship declaration, part of a model's definition (docs/resources.md). */
export const RelationshipDecl = z.strictObject({
  name: RelationshipName,
  target: z.string().min(1, "must name a model (by name or modelId)"),
  cardinality: z.enum(["one", "many"]),
  match: z
    .strictObject({
      sourceField: z.string().min(1),
      targetField: z.string().min(1),
    })
    .optional(),
});
export type RelationshipDecl = z.infer<typeof RelationshipDecl>;

/** A model name: a path segment, and not `context` (rule paths use `context.*`). */
export const ModelName = SegmentName.refine((s) => s !== "context", "is reserved: rule paths use context.* for the context itself");

/** Body of POST /models. */
export const ModelCreate = z.strictObject({
  name: ModelName,
  description: z.string().max(2000).nullish(),
  identity: z.array(z.string()).optional(),
  fields: z.array(FieldInput),
  relationships: z.array(RelationshipDecl).optional(),
});
export type ModelCreate = z.infer<typeof ModelCreate>;

/** Body of PATCH /models/{id}: only the given properties change. */
export const ModelPatch = z.strictObject({
  name: ModelName.optional(),
  description: z.string().max(2000).nullish(),
  identity: z.array(z.string()).optional(),
  relationships: z.array(RelationshipDecl).optional(),
});
export type ModelPatch = z.infer<typeof ModelPatch>;

/** A model as the API returns it: metadata plus the full field definitions. */
export const Model = z.object({
  modelId: Id,
  name: z.string(),
  description: z.string(),
  status: ModelStatus,
  version: z.number().int(),
  identity: z.array(z.string()),
  fields: z.array(Field),
  relationships: z.array(RelationshipDecl),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Model = z.infer<typeof Model>;

/** The model list envelope the interface prescribes. */
export const ModelList = z.object({
  models: z.array(Model),
  nextCursor: z.string().nullable(),
  hasNextPage: z.boolean(),
});
export type ModelList = z.infer<typeof ModelList>;

export { MODEL_STATUSES };
