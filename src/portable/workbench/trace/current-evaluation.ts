import { isDdsError } from "../../../contract/errors.js";
import type { Evaluation } from "../../../contract/schemas/index.js";
import type { DdsService, RuleEvaluationResult } from "../../../contract/service.js";

/** A saved rule's current evaluation in a context, and where it came from. */
export interface CurrentEvaluation {
  evaluation: Evaluation | RuleEvaluationResult;
  /** `evaluation`: the stored one; `dry-run`: none is stored (the rule does not apply there, or is inactive), so it was evaluated now. */
  from: "evaluation" | "dry-run";
}

/**
 * The stored evaluation of `ruleId` in `contextId`, or, when there is none (404), a dry
 * run of the saved rule against the context as it is now.
 */
export async function currentEvaluation(service: DdsService, contextId: string, ruleId: string): Promise<CurrentEvaluation> {
  try {
    return { evaluation: await service.getContextEvaluation(contextId, ruleId), from: "evaluation" };
  } catch (err) {
    if (!isDdsError(err) || err.status !== 404) throw err;
  }
  return { evaluation: await service.evaluateRule({ ruleId, contextId }), from: "dry-run" };
}
