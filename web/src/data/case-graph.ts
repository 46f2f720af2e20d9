/** What the case view reads: the context, its records and links, its evaluations. */
import type { Context, DdsRecord, Evaluation, Model } from "../../../src/contract/schemas/index.js";
import { allModels, allPages } from "../../../src/portable/workbench/trace/lineage-reader.js";
import { service } from "../api/service.js";
import type { GraphLink } from "../components/graph-layout.js";

/** Re-exported for the loaders' callers. */
export type { GraphLink };

/** A case, loaded. */
export interface CaseData {
  context: Context;
  models: Model[];
  records: DdsRecord[];
  links: GraphLink[];
  evaluations: Evaluation[];
}

const SEVERITY = ["critical", "high", "medium", "low"];

/** Failed first, then by severity, then by name. */
export function byAttention(a: Evaluation, b: Evaluation): number {
  if (a.outcome !== b.outcome) return a.outcome ? 1 : -1;
  const s = SEVERITY.indexOf(a.rule.severity) - SEVERITY.indexOf(b.rule.severity);
  return s !== 0 ? s : a.rule.name.localeCompare(b.rule.name);
}

/** Every link of the case's records, current and removed, in one request. */
export async function loadLinks(contextId: string): Promise<GraphLink[]> {
  const { data } = await service.listContextRelationships(contextId);
  return data.map((l) => ({ source: l.sourceRecordId, target: l.targetRecordId, name: l.relationshipName, removedAt: l.removedAt }));
}

/** Loads everything the case view shows. */
export async function loadCase(contextId: string): Promise<CaseData> {
  const [context, models, records, links, evaluations] = await Promise.all([
    service.getContext(contextId, { include: ["summary"] }),
    allModels(service),
    allPages((q) => service.listRecords(q), { filters: [{ field: "contextId", op: "eq", value: contextId }] }),
    loadLinks(contextId),
    allPages((q) => service.listContextEvaluations(contextId, q)),
  ]);
  return { context, models, records, links, evaluations: evaluations.sort(byAttention) };
}
