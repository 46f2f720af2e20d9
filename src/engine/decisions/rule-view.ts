import type { Evaluation, EvaluationTrace, Rule } from "../../contract/schemas/index.js";
import type { EvaluationRow, RuleRow } from "../store/rule-repo.js";

/** The API shape of a rule. */
export function toApiRule(r: RuleRow): Rule {
  return {
    ruleId: r.id,
    name: r.name,
    description: r.description,
    category: r.category as Rule["category"],
    severity: r.severity as Rule["severity"],
    expression: JSON.parse(r.expression) as unknown,
    contextTypes: r.contextTypes,
    status: r.status,
    version: r.version,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/**
 * The API shape of an evaluation. Its freshness follows its context's pipeline, and an
 * evaluation made with an older rule version is stale until recomputed.
 */
export function toApiEvaluation(e: EvaluationRow): Evaluation {
  return {
    evaluationId: e.id,
    ruleId: e.ruleId,
    contextId: e.contextId,
    rule: { name: e.ruleName, category: e.category as Evaluation["rule"]["category"], severity: e.severity as Evaluation["rule"]["severity"] },
    freshness: e.freshness === "resolved" && e.ruleVersion !== e.currentVersion ? "stale" : e.freshness,
    outcome: Boolean(e.outcome),
    evaluationTrace: JSON.parse(e.trace) as EvaluationTrace,
    ruleVersion: e.ruleVersion,
    computedAt: e.computedAt,
  };
}
