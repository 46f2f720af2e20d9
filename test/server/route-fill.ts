import { pathParams, type RouteSpec } from "../../src/contract/routes.js";
import type { Seeded } from "./seed.js";

const STATUS_TARGET: Record<string, string> = { models: "archived", contexts: "completed", rules: "inactive", webhooks: "disabled" };

/** The route's path under /v1 with the seeded workspace's ids filled in. */
export function fillPath(route: RouteSpec, s: Seeded): string {
  const values: Record<string, string> = {
    modelId: s.models.Loan,
    fieldName: "amount",
    fieldId: s.fieldId,
    contextId: s.contextId,
    recordId: s.loanRecordId,
    relationshipName: "applicants",
    targetRecordId: s.applicantRecordId,
    ruleId: s.ruleId,
    contributionId: s.contributionId,
    webhookId: s.webhookId,
    deliveryId: s.deliveryId,
    targetStatus: STATUS_TARGET[route.tag] ?? "active",
  };
  let path = route.path;
  for (const name of pathParams(route.path)) path = path.replace(`{${name}}`, values[name]);
  return `/v1${path}`;
}

/** A body the seeded workspace's own admin could send successfully to this route. */
export function bodyFor(route: RouteSpec, s: Seeded): unknown {
  const contribution = { contextId: s.contextId, modelId: s.models.Loan, sourceId: "route-test", sourceType: "document", data: { amount: 5000 } };
  const bodies: Partial<Record<RouteSpec["operation"], unknown>> = {
    createModel: { name: "Other", fields: [{ name: "x", type: "string" }] },
    updateModel: { description: "changed" },
    createField: { name: "extra", type: "string" },
    replaceModelField: { name: "amount", type: "number", required: true },
    replaceField: { name: "amount", type: "number", required: true },
    createContext: { name: "other" },
    updateContext: { name: "renamed" },
    createContribution: contribution,
    bulkCreateContributions: { items: [contribution] },
    updateRecord: { data: { amount: 5000 } },
    bulkUpdateRecords: { items: [{ recordId: s.loanRecordId, data: { amount: 5000 } }] },
    bulkDeleteRecords: { items: [{ recordId: s.loanRecordId }] },
    createRule: { name: "other-rule", category: "credit", severity: "low", expression: { "==": [1, 1] } },
    updateRule: { description: "changed" },
    createWebhook: { url: "http://127.0.0.1:9/other", events: ["context.stale"] },
    evaluateRule: { ruleId: s.ruleId, contextId: s.contextId },
    recoverWebhookDeliveries: { since: "2000-01-01T00:00:00Z" },
  };
  return bodies[route.operation];
}
