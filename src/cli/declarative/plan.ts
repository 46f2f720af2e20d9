import { DdsError, errors, type ProblemDetail } from "../../contract/errors.js";
import type { DdsService } from "../../contract/service.js";
import type { Context, Contribution, Model, Rule } from "../../contract/schemas/index.js";
import { planContext, type ModelFacts } from "./context-plan.js";
import type { ContextDocument, LoadedDocument, ModelDocument, RuleDocument } from "./document-schema.js";
import { activationOrder, planModel } from "./model-plan.js";
import type { Plan } from "./plan-types.js";
import { planRule } from "./rule-plan.js";
import { mapLimit } from "../../portable/map-limit.js";
import { allModels, allPages } from "../../portable/workbench/trace/lineage-reader.js";
import { validateRuleExpression } from "../../portable/json-logic/index.js";
import { checkRulePaths, type RulePathModel } from "../../portable/rule-paths.js";

async function storedModels(service: DdsService): Promise<Map<string, Model>> {
  return new Map((await allModels(service)).map((m) => [m.name, m]));
}

/** The oldest context of that name: context names are not unique, apply adopts the first. */
async function contextByName(service: DdsService, name: string): Promise<Context | undefined> {
  const page = await service.listContexts({ filters: [{ field: "name", op: "eq", value: name }], sort: [{ field: "createdAt", desc: false }], limit: 1 });
  return page.data[0];
}

const ofKind = <D extends LoadedDocument["doc"]>(docs: LoadedDocument[], kind: D["kind"]) =>
  docs.filter((d): d is LoadedDocument<D> => d.doc.kind === kind);

/** The models as they will be once the plan ran: the stored ones, each replaced by its document. */
function plannedModels(stored: Map<string, Model>, docs: LoadedDocument<ModelDocument>[]): RulePathModel[] {
  const out = new Map<string, RulePathModel>(stored);
  for (const { doc } of docs) {
    out.set(doc.name, { modelId: stored.get(doc.name)?.modelId ?? "", name: doc.name, fields: doc.fields, relationships: doc.relationships ?? [] });
  }
  return [...out.values()];
}

/**
 * Refuses (422 compile_failed, nothing written) Rule documents the service would refuse:
 * an expression that does not compile, or one reading what none of the planned models has.
 */
function assertRulesCompile(docs: LoadedDocument<RuleDocument>[], models: RulePathModel[]): void {
  const problems: ProblemDetail[] = [];
  for (const { doc, source } of docs) {
    const invalid = validateRuleExpression(doc.expression);
    for (const p of invalid.length > 0 ? invalid : checkRulePaths(doc.expression, models)) {
      problems.push({ path: `${source}: Rule ${doc.name}: expression${p.path ? `.${p.path}` : ""}`, message: p.message });
    }
  }
  if (problems.length === 0) return;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  throw errors.compile(`cannot apply ${problems[0].path}: ${problems[0].message}${more}`, problems);
}

/**
 * Reads what the service holds under the documents' names and plans every document.
 * A contribution naming a model that neither the documents nor the service know is a
 * usage error (exit 2); a change the lifecycle forbids is a 422 listing every conflict, and
 * a Rule document the service would refuse (a field no model has) a 422 compile_failed.
 * Either way nothing has been written.
 */
export async function buildPlan(service: DdsService, docs: LoadedDocument[]): Promise<Plan> {
  const conflicts: ProblemDetail[] = [];
  const models = await storedModels(service);
  const modelDocs = ofKind<ModelDocument>(docs, "Model");
  const modelSteps = modelDocs.map((d) => planModel(d, models.get(d.doc.name), conflicts));

  const ruleDocs = ofKind<RuleDocument>(docs, "Rule");
  const rules = ruleDocs.length > 0 ? new Map((await allPages((q) => service.listRules(q))).map((r): [string, Rule] => [r.name, r])) : new Map<string, Rule>();
  const ruleSteps = ruleDocs.map((d) => planRule(d, rules.get(d.doc.name)));
  assertRulesCompile(ruleDocs, plannedModels(models, modelDocs));

  const facts = new Map<string, ModelFacts>();
  for (const m of models.values()) facts.set(m.name, { modelId: m.modelId, identity: m.identity });
  for (const d of modelDocs) facts.set(d.doc.name, { modelId: models.get(d.doc.name)?.modelId, identity: d.doc.identity ?? [] });
  const contextDocs = ofKind<ContextDocument>(docs, "Context");
  const unknown: ProblemDetail[] = [];
  for (const d of contextDocs) {
    (d.doc.contributions ?? []).forEach((c, i) => {
      if (!facts.has(c.model)) unknown.push({ path: `${d.source}: Context.contributions.${i}.model`, message: `no model named "${c.model}" in the documents or the service` });
    });
  }
  if (unknown.length > 0) {
    const e = new DdsError("invalid_request", `${unknown[0].path}: ${unknown[0].message}${unknown.length > 1 ? ` (and ${unknown.length - 1} more)` : ""}`, unknown);
    e.usage = true;
    throw e;
  }
  const contextSteps = await mapLimit(contextDocs, 8, async (d) => {
    const existing = await contextByName(service, d.doc.name);
    const stored: Contribution[] = existing
      ? await allPages((q) => service.listContributions(q), { filters: [{ field: "contextId", op: "eq", value: existing.contextId }] })
      : [];
    return planContext(d, existing, stored, facts, conflicts);
  });
  if (conflicts.length > 0) {
    const more = conflicts.length > 1 ? ` (and ${conflicts.length - 1} more)` : "";
    throw new DdsError("validation_failed", `cannot apply ${conflicts[0].path}: ${conflicts[0].message}${more}`, conflicts);
  }
  const storedModelIds = new Map([...models.values()].map((m): [string, string] => [m.name, m.modelId]));
  return { models: modelSteps, rules: ruleSteps, contexts: contextSteps, activation: activationOrder(modelSteps), storedModelIds };
}
