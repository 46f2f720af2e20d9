/**
 * The impact of a rule change before it ships: a draft expression dry-run over every
 * stored context the rule applies to (its context types; nothing saved), optionally
 * compared with a saved rule's current outcome per context, counting the contexts that
 * would flip. `rules eval --all-contexts` and the studio's impact panel both run this, so
 * the terminal and the page count the same cases.
 */
import type { ListQuery } from "../../../contract/list-query.js";
import type { Context, Rule } from "../../../contract/schemas/index.js";
import type { DdsService } from "../../../contract/service.js";
import { currentEvaluation } from "../trace/current-evaluation.js";
import { allModels, allPages } from "../trace/lineage-reader.js";
import { assertRuleExpression, assertRulePaths } from "./local-eval.js";
import { mapLimit } from "../../map-limit.js";

/** Where a saved rule's outcome came from: its stored evaluation, or a dry run of it. */
export type BeforeSource = "evaluation" | "dry-run";

/** One context's result. */
export interface ImpactRow {
  contextId: string;
  name: string | null;
  type: string | null;
  /** The draft's outcome (null when evaluating failed). */
  outcome: boolean | null;
  error?: string;
  /** The saved rule's current outcome (with --against). */
  before?: boolean | null;
  /** Where `before` came from: the saved rule's stored evaluation, or a dry run of it where none is stored. */
  beforeFrom?: BeforeSource;
  flip?: "pass→fail" | "fail→pass";
}

/** The whole report (`rules eval --all-contexts --json`). */
export interface ImpactReport {
  /** The context types the rule applies to (empty: every context). */
  appliesTo: string[];
  contexts: number;
  passed: number;
  failed: number;
  errors: number;
  against?: { ruleId: string; name: string; passToFail: number; failToPass: number; unchanged: number; unknown: number };
  results: ImpactRow[];
}

/** Contexts evaluated at once (each dry run is a full resolution pass of the context). */
const IN_FLIGHT = 8;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The saved rule's current outcome in a context (null when it cannot be had). */
async function currentOutcome(service: DdsService, contextId: string, ruleId: string): Promise<{ outcome: boolean | null; from: BeforeSource }> {
  try {
    const current = await currentEvaluation(service, contextId, ruleId);
    return { outcome: current.evaluation.outcome, from: current.from };
  } catch {
    return { outcome: null, from: "dry-run" };
  }
}

/** A draft: its expression and the context types it applies to (none: every context). */
export interface ImpactDraft {
  expression: unknown;
  contextTypes: readonly string[];
}

/** The contexts matching `query` that a rule with these context types is evaluated in. */
export function applicableCases(contextTypes: readonly string[], query: ListQuery = {}): ListQuery {
  if (contextTypes.length === 0) return query;
  return { ...query, filters: [...(query.filters ?? []), { field: "type", op: "in", value: contextTypes.join(",") }] };
}

/**
 * Dry-runs the draft over every context matching `query` that it applies to, compared with
 * `against`.
 */
export async function runImpact(service: DdsService, draft: ImpactDraft, query: ListQuery, against?: Rule): Promise<ImpactReport> {
  const { expression } = draft;
  // Refused once, before any case: what every dry run would refuse (a field no model has).
  assertRuleExpression(expression);
  assertRulePaths(expression, await allModels(service));
  const contexts: Context[] = await allPages((q) => service.listContexts(q), applicableCases(draft.contextTypes, query));
  const results = await mapLimit(contexts, IN_FLIGHT, async (c): Promise<ImpactRow> => {
    const row: ImpactRow = { contextId: c.contextId, name: c.name, type: c.type, outcome: null };
    try {
      const run = await service.evaluateRule({ expression, contextId: c.contextId });
      // A run that failed (outcome false with an error) is not counted as a fail.
      if (run.evaluationTrace.error !== undefined) row.error = run.evaluationTrace.error;
      else row.outcome = run.outcome;
    } catch (err) {
      row.error = message(err);
    }
    if (against) {
      const before = await currentOutcome(service, c.contextId, against.ruleId);
      row.before = before.outcome;
      row.beforeFrom = before.from;
      if (row.outcome !== null && before.outcome !== null && row.outcome !== before.outcome) {
        row.flip = before.outcome ? "pass→fail" : "fail→pass";
      }
    }
    return row;
  });
  const report: ImpactReport = {
    appliesTo: [...draft.contextTypes],
    contexts: results.length,
    passed: results.filter((r) => r.outcome === true).length,
    failed: results.filter((r) => r.outcome === false).length,
    errors: results.filter((r) => r.outcome === null).length,
    results,
  };
  if (against) {
    const unknown = results.filter((r) => r.outcome === null || r.before === null).length;
    const passToFail = results.filter((r) => r.flip === "pass→fail").length;
    const failToPass = results.filter((r) => r.flip === "fail→pass").length;
    report.against = { ruleId: against.ruleId, name: against.name, passToFail, failToPass, unchanged: results.length - unknown - passToFail - failToPass, unknown };
  }
  return report;
}
