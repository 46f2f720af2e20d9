import { z } from "zod";
import { JsonObject } from "../../contract/schemas/common.js";
import { SourceType } from "../../contract/schemas/field.js";
import { ModelCreate } from "../../contract/schemas/model.js";
import { RuleCreate } from "../../contract/schemas/rule.js";

/**
 * `kind: Model`: the POST /models body plus the status apply should leave the model in
 * (`active`, the default, or `draft` to keep it editable and out of the pipeline).
 */
export const ModelDocument = ModelCreate.extend({
  kind: z.literal("Model"),
  status: z.enum(["active", "draft"]).optional(),
});
export type ModelDocument = z.infer<typeof ModelDocument>;

/** `kind: Rule`: the POST /rules body (status `active` unless it says `inactive`). */
export const RuleDocument = RuleCreate.extend({ kind: z.literal("Rule") });
export type RuleDocument = z.infer<typeof RuleDocument>;

/**
 * One piece of evidence of a Context document: the POST /contributions body with the
 * model named by name and the context implied by the enclosing document.
 */
export const ContributionDocument = z.strictObject({
  model: z.string().min(1, "must name a model"),
  sourceId: z.string().min(1).max(200),
  sourceType: SourceType,
  data: JsonObject,
  fieldConfidences: z.record(z.string(), z.number()).optional(),
  observedAt: z.string().optional(),
});
export type ContributionDocument = z.infer<typeof ContributionDocument>;

/**
 * `kind: Context`: a decisioning context identified by its `name` (apply finds it by
 * name), its type and metadata, and the evidence it should hold.
 */
export const ContextDocument = z.strictObject({
  kind: z.literal("Context"),
  name: z.string().trim().min(1, "a Context document needs a name: apply finds contexts by name").max(200),
  type: z.string().max(100).nullish(),
  metadata: JsonObject.nullish(),
  contributions: z.array(ContributionDocument).optional(),
});
export type ContextDocument = z.infer<typeof ContextDocument>;

/** The kinds apply understands, with their schemas. */
export const DOCUMENT_SCHEMAS = { Model: ModelDocument, Rule: RuleDocument, Context: ContextDocument } as const;

/** The kinds apply understands. */
export type DocumentKind = keyof typeof DOCUMENT_SCHEMAS;

/** Any declarative document. */
export type AnyDocument = ModelDocument | RuleDocument | ContextDocument;

/** A document with where it came from (`path: document N`), for messages. */
export interface LoadedDocument<D extends AnyDocument = AnyDocument> {
  source: string;
  doc: D;
}
