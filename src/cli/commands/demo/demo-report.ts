import type { DdsService } from "../../../contract/service.js";
import type { Evaluation, RuleCategory, RuleSeverity } from "../../../contract/schemas/index.js";
import { RULE_SEVERITIES } from "../../../contract/constants.js";
import { allPages } from "../../../portable/workbench/trace/lineage-reader.js";
import { mapLimit } from "../../../portable/map-limit.js";

/** One row of the demo's context table. */
export interface DemoContextRow {
  contextId: string;
  name: string;
  status: string;
  freshness: string;
  passed: number;
  failed: number;
}

/** One row of the demo's rule summary. */
export interface DemoRuleRow {
  ruleId: string;
  name: string;
  category: RuleCategory;
  severity: RuleSeverity;
  passed: number;
  failed: number;
}

/** What the demo shows (and prints under --json). */
export interface DemoReport {
  contexts: DemoContextRow[];
  rules: DemoRuleRow[];
  /** The evaluation whose trace is shown: the most severe failure of the first case that fails one rule only. */
  trace: Evaluation | null;
  traceContext: string | null;
}

const severityRank = (s: RuleSeverity) => RULE_SEVERITIES.indexOf(s);

/**
 * Reads the demo's contexts (in document order) with their evaluations, counts passes and
 * failures per context and per rule, and picks one failing evaluation to trace: a case
 * that fails exactly one rule tells the clearest story, so the first such case wins.
 */
export async function buildDemoReport(service: DdsService, contextIds: string[]): Promise<DemoReport> {
  const perContext = await mapLimit(contextIds, 8, async (id) => ({
    context: await service.getContext(id),
    evaluations: await allPages((q) => service.listContextEvaluations(id, q)),
  }));
  const rules = new Map<string, DemoRuleRow>();
  for (const { evaluations } of perContext) {
    for (const e of evaluations) {
      const row = rules.get(e.ruleId) ?? { ruleId: e.ruleId, ...e.rule, passed: 0, failed: 0 };
      if (e.outcome) row.passed++;
      else row.failed++;
      rules.set(e.ruleId, row);
    }
  }
  const contexts = perContext.map(({ context: c, evaluations }) => ({
    contextId: c.contextId,
    name: c.name ?? c.contextId,
    status: c.status,
    freshness: c.freshness,
    passed: evaluations.filter((e) => e.outcome).length,
    failed: evaluations.filter((e) => !e.outcome).length,
  }));
  const single = perContext.find((p) => p.evaluations.filter((e) => !e.outcome).length === 1) ?? perContext.find((p) => p.evaluations.some((e) => !e.outcome));
  const failures = (single?.evaluations ?? []).filter((e) => !e.outcome).sort((a, b) => severityRank(b.rule.severity) - severityRank(a.rule.severity));
  const ruleRows = [...rules.values()].sort((a, b) => severityRank(b.severity) - severityRank(a.severity) || a.name.localeCompare(b.name));
  return { contexts, rules: ruleRows, trace: failures[0] ?? null, traceContext: single?.context.name ?? null };
}
