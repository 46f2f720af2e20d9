import type { ProblemDetail } from "../../contract/errors.js";
import type { DdsService } from "../../contract/service.js";
import type { LoadedDocument } from "./document-schema.js";
import { executePlan } from "./execute.js";
import { buildPlan } from "./plan.js";
import type { PlanItem } from "./plan-types.js";

/** What `apply` reports (and prints under --json). */
export interface ApplyResult {
  dryRun: boolean;
  /** True when the documents differ from what the service holds (or held, before this run). */
  changed: boolean;
  summary: { create: number; update: number; unchanged: number; contributionsAdded: number };
  items: PlanItem[];
  /** Contributions the service refused (empty in a dry run). */
  failures: ProblemDetail[];
  /** Contexts created or given evidence: the ones a wait should watch. */
  touchedContexts: string[];
  /** Ids of every context the documents declare (known after a real run). */
  contextIds: string[];
}

/**
 * Plans the documents against the service and, unless `dryRun`, carries the plan out.
 * The shared core of `apply`, `seed` and `demo`.
 */
export async function applyDocuments(service: DdsService, docs: LoadedDocument[], options: { dryRun: boolean }): Promise<ApplyResult> {
  const plan = await buildPlan(service, docs);
  const items = [...plan.models, ...plan.rules, ...plan.contexts].map((s) => s.item);
  const count = (action: PlanItem["action"]) => items.filter((i) => i.action === action).length;
  const pendingContributions = plan.contexts.reduce((n, s) => n + s.add.length, 0);
  const result: ApplyResult = {
    dryRun: options.dryRun,
    changed: items.some((i) => i.action !== "unchanged"),
    summary: { create: count("create"), update: count("update"), unchanged: count("unchanged"), contributionsAdded: options.dryRun ? 0 : pendingContributions },
    items,
    failures: [],
    touchedContexts: [],
    contextIds: [],
  };
  if (options.dryRun || !result.changed) {
    result.contextIds = plan.contexts.map((s) => s.item.id).filter((id): id is string => id !== undefined);
    return result;
  }
  const done = await executePlan(service, plan);
  result.summary.contributionsAdded = done.contributionsAdded;
  result.failures = done.failures;
  result.touchedContexts = done.touchedContexts;
  result.contextIds = plan.contexts.map((s) => s.item.id!);
  return result;
}
