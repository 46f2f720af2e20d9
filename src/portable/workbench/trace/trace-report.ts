/**
 * The data `trace --json` prints: the evaluation, the deciding path through its tree, and
 * every input joined to its lineage. `trace diff` reads the same document back as a
 * snapshot.
 */
import type { Evaluation, EvaluationTrace } from "../../../contract/schemas/index.js";
import type { RuleEvaluationResult } from "../../../contract/service.js";
import type { InputExplanation } from "./input-sources.js";
import { alignTrace, decidingPath, type TraceNode } from "./trace-align.js";

/** One node of the deciding path. */
export interface DecidingStep {
  /** The node's key (`and.1`, `all.1[2]`; `$` is the root). */
  path: string;
  op: string;
  result: unknown;
  passed: boolean;
}

/** `trace <contextId> <rule> --json`. */
export interface TraceReport {
  evaluation: Evaluation | RuleEvaluationResult;
  decidingPath: DecidingStep[];
  inputs: InputExplanation[];
}

/** The aligned tree of an evaluation's trace. */
export function alignEvaluation(trace: EvaluationTrace): TraceNode {
  return alignTrace(trace.steps, trace.expression);
}

/** The deciding path as data. */
export function decidingSteps(root: TraceNode): DecidingStep[] {
  return decidingPath(root).map((n) => ({ path: n.key, op: n.step.op, result: n.step.result ?? null, passed: n.step.passed }));
}

/**
 * Builds the report. Inputs without lineage (a `--data` evaluation) list each path with
 * its value and no sources.
 */
export function buildTraceReport(evaluation: Evaluation | RuleEvaluationResult, inputs?: InputExplanation[]): TraceReport {
  const trace = evaluation.evaluationTrace;
  return {
    evaluation,
    decidingPath: decidingSteps(alignEvaluation(trace)),
    inputs: inputs ?? Object.entries(trace.inputs ?? {}).map(([path, value]) => ({ path, value, sources: [] })),
  };
}

/** True for a stored evaluation (it names its rule), false for a dry run. */
export function isStoredEvaluation(e: Evaluation | RuleEvaluationResult): e is Evaluation {
  return "ruleId" in e && "rule" in e;
}
