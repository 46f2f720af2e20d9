import type { ProblemDetail } from "../../contract/errors.js";
import type { DdsService } from "../../contract/service.js";
import type { ContributionCreate, FieldInput } from "../../contract/schemas/index.js";
import { problemText } from "../render/bulk.js";
import type { ContextSteps, ModelSteps, Plan, RuleSteps } from "./plan-types.js";

/** Most items a bulk request may carry. */
const BULK_LIMIT = 100;

/** What executing a plan did beyond the plan itself. */
export interface ExecuteResult {
  contributionsAdded: number;
  /** Contributions the service refused, with the document they came from. */
  failures: ProblemDetail[];
  /** Contexts that were created or received evidence. */
  touchedContexts: string[];
}

// Plain fields first, computed ones after: a computed field may read a field added alongside it.
const plainFirst = (fields: FieldInput[]) => [...fields.filter((f) => !f.computed), ...fields.filter((f) => f.computed)];

async function updateModel(service: DdsService, steps: ModelSteps): Promise<void> {
  const id = steps.item.id!;
  const adds = plainFirst(steps.addFields);
  for (const f of adds.filter((f) => !f.computed)) await service.createField(id, f);
  // Relationships after plain fields (a match may name a new field), before computed ones
  // (they may read through a new relationship).
  if (steps.patch) await service.updateModel(id, steps.patch);
  for (const f of steps.replaceFields) await service.replaceModelField(id, f.name, f);
  for (const f of adds.filter((f) => f.computed)) await service.createField(id, f);
  // Computed fields go first: a computed field may read a plain field removed with it.
  const computed = new Set(steps.storedComputed);
  const removals = [...steps.removeFields.filter((n) => computed.has(n)), ...steps.removeFields.filter((n) => !computed.has(n))];
  for (const name of removals) await service.deleteModelField(id, name);
}

async function applyRule(service: DdsService, steps: RuleSteps): Promise<void> {
  if (steps.create) {
    const { kind: _kind, ...body } = steps.create;
    steps.item.id = (await service.createRule(body)).ruleId;
    return;
  }
  if (steps.patch) await service.updateRule(steps.item.id!, steps.patch);
  if (steps.status) await service.setRuleStatus(steps.item.id!, steps.status);
}

async function applyContext(service: DdsService, steps: ContextSteps): Promise<void> {
  const { doc } = steps;
  if (steps.create) {
    steps.item.id = (await service.createContext({ name: doc.name, type: doc.type ?? undefined, metadata: doc.metadata ?? undefined })).contextId;
  } else if (steps.patch) {
    await service.updateContext(steps.item.id!, steps.patch);
  }
}

/** Sends the pending contributions in bulk batches; refused items are collected, not thrown. */
async function addContributions(service: DdsService, plan: Plan, modelIds: Map<string, string>, result: ExecuteResult): Promise<void> {
  const queue: { body: ContributionCreate; where: string }[] = [];
  for (const steps of plan.contexts) {
    for (const c of steps.add) {
      const { model, index, ...rest } = c;
      queue.push({ body: { ...rest, contextId: steps.item.id!, modelId: modelIds.get(model)! }, where: `${steps.item.source}: contributions.${index}` });
    }
  }
  for (let at = 0; at < queue.length; at += BULK_LIMIT) {
    const batch = queue.slice(at, at + BULK_LIMIT);
    const res = await service.bulkCreateContributions({ items: batch.map((b) => b.body) });
    for (const item of res.items) {
      if (item.error) result.failures.push({ path: batch[item.index].where, message: problemText(item.error) });
      else result.contributionsAdded++;
    }
  }
}

/**
 * Carries out a plan: creates new models as drafts, updates existing ones, activates them
 * in dependency order, then rules, then contexts and their evidence. New ids are written
 * back into the plan's items. A service error stops it (what ran stays done; a rerun
 * picks up from there, since apply compares before it writes).
 */
export async function executePlan(service: DdsService, plan: Plan): Promise<ExecuteResult> {
  const modelIds = new Map(plan.storedModelIds);
  for (const steps of plan.models) {
    if (!steps.create) continue;
    const model = await service.createModel(steps.create);
    steps.item.id = model.modelId;
  }
  for (const steps of plan.models) {
    modelIds.set(steps.doc.name, steps.item.id!);
    if (!steps.create && steps.item.action === "update") await updateModel(service, steps);
  }
  for (const name of plan.activation) await service.setModelStatus(modelIds.get(name)!, "active");
  for (const steps of plan.rules) if (steps.item.action !== "unchanged") await applyRule(service, steps);
  for (const steps of plan.contexts) await applyContext(service, steps);
  const result: ExecuteResult = { contributionsAdded: 0, failures: [], touchedContexts: [] };
  await addContributions(service, plan, modelIds, result);
  result.touchedContexts = plan.contexts.filter((s) => s.create || s.add.length > 0).map((s) => s.item.id!);
  return result;
}
