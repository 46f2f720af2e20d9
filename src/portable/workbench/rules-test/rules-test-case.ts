/**
 * One case of `rules test`, run against a rule expression: a `data` case offline with the
 * engine's pure compiler, a `context` case by the service's dry run. No file or process
 * access, so the studio's page runs the same code on the cases the studio serves.
 */
import type { DdsService, RuleEvaluationResult } from "../../../contract/service.js";
import type { TestCase } from "./cases-schema.js";
import { resolveRef } from "../../names/resolve-ref.js";
import { checkExpectedValues } from "../trace/expect-values.js";
import { evaluateLocally } from "../rules-eval/local-eval.js";
import { alignTrace } from "../trace/trace-align.js";
import { pushAll } from "../../arrays.js";

/** One case's result. */
export interface CaseResult {
  name: string;
  passed: boolean;
  expected: boolean;
  /** The rule's outcome (null when the case could not be evaluated). */
  outcome: boolean | null;
  /** Why it failed: one message per unmet expectation. */
  failures: string[];
  /** The evaluation, for its trace. */
  evaluation?: RuleEvaluationResult;
  /** The case's `data` or `context`. */
  against: "data" | "context";
}

/** Runs one case; every unmet expectation is one failure message. */
export async function runCase(c: TestCase, expression: unknown, service: () => Promise<DdsService>): Promise<CaseResult> {
  const against = c.data !== undefined ? "data" : "context";
  const result: CaseResult = { name: c.name, passed: false, expected: c.expect, outcome: null, failures: [], against };
  try {
    const evaluation =
      c.data !== undefined
        ? evaluateLocally(expression, c.data)
        : await (async () => {
            const s = await service();
            return s.evaluateRule({ expression, contextId: await resolveRef(s, "context", c.context!) });
          })();
    result.evaluation = evaluation;
    result.outcome = evaluation.outcome;
    if (evaluation.outcome !== c.expect) result.failures.push(`expected outcome ${c.expect}, got ${evaluation.outcome}`);
    if (evaluation.evaluationTrace.error) result.failures.push(`runtime error: ${evaluation.evaluationTrace.error}`);
    if (c.expectValues) {
      const root = alignTrace(evaluation.evaluationTrace.steps, expression);
      pushAll(result.failures, checkExpectedValues(root, expression, c.expectValues));
    }
  } catch (err) {
    result.failures.push(err instanceof Error ? err.message : String(err));
  }
  result.passed = result.failures.length === 0;
  return result;
}

