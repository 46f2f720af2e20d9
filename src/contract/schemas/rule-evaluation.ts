import { z } from "zod";
import { Id, JsonObject, Timestamp } from "./common.js";
import { EvaluationTrace } from "./evaluation.js";

/** Body of `POST /rules/evaluate`: a dry run, nothing stored. */
export const RuleEvaluationRequestSchema = z.strictObject({
  expression: z.unknown().optional().describe("a draft JSON Logic expression (or give ruleId)"),
  ruleId: Id.optional().describe("a saved rule to evaluate (or give expression)"),
  contextId: Id.optional().describe("a stored context to evaluate against (or give data)"),
  data: JsonObject.optional().describe("a document of dotted paths to evaluate against (or give contextId)"),
  asOf: z.string().optional().describe("with contextId: count only evidence received by this time"),
});

/** Answer of `POST /rules/evaluate`. */
export const RuleEvaluationResultSchema = z.object({
  contextId: Id.nullable(),
  asOf: Timestamp.nullable(),
  outcome: z.boolean(),
  evaluationTrace: EvaluationTrace,
});
