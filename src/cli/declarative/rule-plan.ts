import type { Rule, RulePatch } from "../../contract/schemas/index.js";
import { sameJson } from "./canonical.js";
import type { LoadedDocument, RuleDocument } from "./document-schema.js";
import type { PlanChange, RuleSteps } from "./plan-types.js";

/** The properties a Rule document sets, with the defaults the service applies. */
function wanted(doc: RuleDocument) {
  return {
    description: doc.description ?? "",
    category: doc.category,
    severity: doc.severity,
    expression: doc.expression,
    contextTypes: doc.contextTypes ?? [],
  };
}

/**
 * Plans one Rule document against the stored rule of that name: create it, or PATCH the
 * properties that differ (a new expression raises the rule's version and turns its
 * evaluations stale) and move its status when the document's differs.
 */
export function planRule(loaded: LoadedDocument<RuleDocument>, existing: Rule | undefined): RuleSteps {
  const { doc, source } = loaded;
  const changes: PlanChange[] = [];
  const steps: RuleSteps = { doc, item: { kind: "Rule", name: doc.name, source, action: "create", changes } };
  if (!existing) {
    steps.create = doc;
    return steps;
  }
  steps.item.id = existing.ruleId;
  const patch: RulePatch = {};
  const target = wanted(doc);
  for (const key of Object.keys(target) as (keyof typeof target)[]) {
    if (sameJson(target[key], existing[key])) continue;
    (patch as Record<string, unknown>)[key] = target[key];
    changes.push({ path: key, op: "change", from: existing[key], to: target[key] });
  }
  if (changes.length > 0) steps.patch = patch;
  const status = doc.status ?? "active";
  if (status !== existing.status) {
    steps.status = status;
    changes.push({ path: "status", op: "change", from: existing.status, to: status });
  }
  steps.item.action = changes.length > 0 ? "update" : "unchanged";
  return steps;
}
