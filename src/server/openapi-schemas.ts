import { z } from "@hono/zod-openapi";
import * as S from "../contract/schemas/index.js";

/*
 * zod-to-openapi overflows the stack on the recursive, lazy TraceStep, so the document
 * uses a named stand-in (referred to by `$ref`) and the real recursive JSON Schema,
 * TRACE_STEP_JSON, is written into the components afterwards.
 */
const TraceStepDoc = z.object({}).meta({ id: "TraceStep" });

/** The documented EvaluationTrace: the contract's, with the TraceStep stand-in. */
export const EvaluationTraceDoc = S.EvaluationTrace.extend({ steps: TraceStepDoc });
/** The documented Evaluation, with the documented trace. */
export const EvaluationDoc = S.Evaluation.extend({ evaluationTrace: EvaluationTraceDoc });
/** The JSON Schema of TraceStep, recursive through its own `$ref`. */
export const TRACE_STEP_JSON = {
  type: "object",
  description: "one node of the evaluation tree: a sub-expression, its value and whether it passed",
  properties: {
    op: { type: "string" },
    args: { type: "array", items: {} },
    result: {},
    passed: { type: "boolean" },
    children: { type: "array", items: { $ref: "#/components/schemas/TraceStep" } },
  },
  required: ["op", "result", "passed", "children"],
};

/**
 * Named copies of the shared schemas, so the document lists them once under
 * `components.schemas` and refers to them. Made once per process: zod's registry refuses
 * a second schema under the same id.
 */
const NAMED = new Map<z.ZodType, z.ZodType>(
  (
    [
      [S.Model, "Model"],
      [S.ModelList, "ModelList"],
      [S.ModelCreate, "ModelCreate"],
      [S.ModelPatch, "ModelPatch"],
      [S.Field, "Field"],
      [S.FieldInput, "FieldInput"],
      [S.Context, "Context"],
      [S.ContextCreate, "ContextCreate"],
      [S.ContextPatch, "ContextPatch"],
      [S.Contribution, "Contribution"],
      [S.ContributionCreate, "ContributionCreate"],
      [S.RecordSchema, "Record"],
      [S.RecordUpdate, "RecordUpdate"],
      [S.RelationshipLink, "RelationshipLink"],
      [S.Rule, "Rule"],
      [S.RuleCreate, "RuleCreate"],
      [S.RulePatch, "RulePatch"],
      [S.Webhook, "Webhook"],
      [S.WebhookCreate, "WebhookCreate"],
      [S.WebhookDelivery, "WebhookDelivery"],
      [S.WebhookRecover, "WebhookRecover"],
      [S.WebhookRecoverResult, "WebhookRecoverResult"],
      [S.BulkResponse, "BulkResponse"],
      [S.ProblemSchema, "Problem"],
      [EvaluationDoc, "Evaluation"],
    ] as [z.ZodType, string][]
  ).map(([schema, id]) => [schema, schema.meta({ id })]),
);

/** The named copy of a schema; list envelopes get a named item. */
export function named(schema: z.ZodType): z.ZodType {
  const hit = NAMED.get(schema);
  if (hit) return hit;
  if (schema instanceof z.ZodObject && schema.shape.data instanceof z.ZodArray) {
    return schema.extend({ data: z.array(named(schema.shape.data.element as z.ZodType)) });
  }
  return schema;
}

/** A bulk answer whose items carry `data` of one type (none for deletes). */
const bulkOf = (data?: z.ZodType) =>
  S.BulkResponse.extend({ items: z.array(data ? S.BulkItemResult.extend({ data: data.optional() }) : S.BulkItemResult.omit({ data: true })) });

/** The typed bulk answers, by operation. */
export const BULK_RESPONSES: Record<string, z.ZodType> = {
  bulkCreateContributions: bulkOf(named(S.Contribution)).meta({ id: "ContributionBulkResponse" }),
  bulkUpdateRecords: bulkOf(named(S.RecordSchema)).meta({ id: "RecordBulkResponse" }),
  bulkDeleteRecords: bulkOf().meta({ id: "RecordDeleteBulkResponse" }),
};

/**
 * zod-to-openapi writes a flagged regex as `<source>/i`, which no id would match; ids are
 * documented as `format: uuid` instead.
 */
export function fixIdPatterns(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(fixIdPatterns);
  if (node === null || typeof node !== "object") return;
  const obj = node as Record<string, unknown>;
  if (typeof obj.pattern === "string" && obj.pattern.endsWith("/i")) {
    delete obj.pattern;
    obj.format = "uuid";
  }
  Object.values(obj).forEach(fixIdPatterns);
}

