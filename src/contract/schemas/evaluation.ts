import { z } from "zod";
import { Id, JsonObject, Timestamp } from "./common.js";
import { Freshness } from "./context.js";
import { RuleCategory, RuleSeverity } from "./rule.js";

/** One node of the evaluation tree: a sub-expression, its value and pass/fail. */
export interface TraceStep {
  op: string;
  args?: unknown[];
  result: unknown;
  passed: boolean;
  children: TraceStep[];
}
export const TraceStep: z.ZodType<TraceStep> = z.lazy(() =>
  z.object({
    op: z.string(),
    args: z.array(z.unknown()).optional(),
    result: z.unknown(),
    passed: z.boolean(),
    children: z.array(TraceStep),
  }),
);

/** The evaluation trace of docs/resources.md. */
export const EvaluationTrace = z.object({
  expression: z.unknown(),
  inputs: JsonObject,
  result: z.unknown(),
  steps: TraceStep,
  error: z.string().optional(),
});
export type EvaluationTrace = z.infer<typeof EvaluationTrace>;

/** A rule evaluation as the API returns it. */
export const Evaluation = z.object({
  evaluationId: Id,
  ruleId: Id,
  contextId: Id,
  rule: z.object({ name: z.string(), category: RuleCategory, severity: RuleSeverity }),
  freshness: Freshness,
  outcome: z.boolean(),
  evaluationTrace: EvaluationTrace,
  ruleVersion: z.number().int(),
  computedAt: Timestamp,
});
export type Evaluation = z.infer<typeof Evaluation>;
