import { z } from "zod";
import { RECORD_INCLUDES } from "../constants.js";
import { Id, JsonObject, Timestamp } from "./common.js";
import { Freshness } from "./context.js";
import { Field, ResolutionPolicy, SourceType } from "./field.js";

/** Per-field lineage (`include=lineage`): which contribution won and how. */
export const FieldLineage = z.object({
  contributionId: Id.nullable(),
  sourceId: z.string().nullable(),
  sourceType: SourceType.nullable(),
  confidence: z.number().nullable(),
  policy: z.union([ResolutionPolicy, z.literal("computed")]),
  candidates: z.number().int(),
});
export type FieldLineage = z.infer<typeof FieldLineage>;

/** A validation problem of a record's resolved data. */
export const RecordIssue = z.object({
  field: z.string(),
  code: z.enum(["required", "type", "min", "max", "minLength", "maxLength", "pattern", "values"]),
  message: z.string(),
});
export type RecordIssue = z.infer<typeof RecordIssue>;

/** A record as the API returns it. */
export const RecordSchema = z.object({
  recordId: Id,
  modelId: Id,
  contextId: Id,
  freshness: Freshness,
  sha256: z.string(),
  data: JsonObject,
  issues: z.array(RecordIssue),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  createdBy: z.string(),
  model: z
    .object({ modelId: Id, name: z.string(), version: z.number().int(), fields: z.array(Field) })
    .optional(),
  lineage: z.record(z.string(), FieldLineage).optional(),
});
export type DdsRecord = z.infer<typeof RecordSchema>;

/** Body of PATCH /records/{id}. */
export const RecordUpdate = z.strictObject({ data: JsonObject });
export type RecordUpdate = z.infer<typeof RecordUpdate>;

/** `include=` values of GET /records/{id}. */
export type RecordInclude = (typeof RECORD_INCLUDES)[number];

export { RECORD_INCLUDES };
