/** What the cases view reads: contexts by the server's filters, rule outcomes, summaries. */
import type { FilterClause, ListQuery } from "../../../src/contract/list-query.js";
import type { Context, ContextSummary, Rule } from "../../../src/contract/schemas/index.js";
import { allPages } from "../../../src/portable/workbench/trace/lineage-reader.js";
import { service } from "../api/service.js";

/** The filters of the cases view, as its address holds them. */
export interface CaseFilters {
  type?: string;
  status?: string;
  freshness?: string;
  /** `key=value` on the context's metadata. */
  meta?: string;
  /** A rule (id) whose outcome filters the cases, with `outcome`. */
  rule?: string;
  outcome?: "pass" | "fail";
}

/** Contexts shown at most (a workspace with more is narrowed with the filters). */
export const MAX_CASES = 5000;

/** The list query the server filters by (type, status, freshness, metadata). */
export function casesQuery(f: CaseFilters): ListQuery {
  const filters: FilterClause[] = [];
  if (f.type) filters.push({ field: "type", op: "eq", value: f.type });
  if (f.status) filters.push({ field: "status", op: "eq", value: f.status });
  if (f.freshness) filters.push({ field: "freshness", op: "eq", value: f.freshness });
  const m = f.meta ? /^([^=]+)=(.*)$/.exec(f.meta) : null;
  if (m) filters.push({ field: `metadata.${m[1].trim()}`, op: "eq", value: m[2].trim() });
  return { filters, sort: [{ field: "name", desc: false }] };
}

/** The contexts whose evaluation of `ruleId` has the given outcome. */
export async function contextsWithOutcome(ruleId: string, outcome: "pass" | "fail"): Promise<Set<string>> {
  const evaluations = await allPages((q) => service.listRuleEvaluations(ruleId, q), {
    filters: [{ field: "outcome", op: "eq", value: outcome === "pass" ? "true" : "false" }],
  });
  return new Set(evaluations.map((e) => e.contextId));
}

/** The cases matching the filters (the rule outcome applied here, the rest by the server). */
export async function loadCases(f: CaseFilters): Promise<Context[]> {
  const [contexts, only] = await Promise.all([
    allPages((q) => service.listContexts(q), casesQuery(f)),
    f.rule && f.outcome ? contextsWithOutcome(f.rule, f.outcome) : Promise.resolve(undefined),
  ]);
  return (only ? contexts.filter((c) => only.has(c.contextId)) : contexts).slice(0, MAX_CASES);
}

/** Every rule (for the filter and the rules view). */
export function loadRules(): Promise<Rule[]> {
  return allPages((q) => service.listRules(q), { sort: [{ field: "name", desc: false }] });
}

/** Summaries (passed/failed counts) of some contexts, a few requests at a time; `arrived` after each. */
export async function loadSummaries(ids: string[], into: Map<string, ContextSummary>, arrived: () => void = () => undefined): Promise<void> {
  const todo = ids.filter((id) => !into.has(id));
  let next = 0;
  const lane = async () => {
    while (next < todo.length) {
      const id = todo[next++];
      const c = await service.getContext(id, { include: ["summary"] });
      if (c.summary) into.set(id, c.summary);
      arrived();
    }
  };
  await Promise.all(Array.from({ length: Math.min(6, todo.length) }, lane));
}
