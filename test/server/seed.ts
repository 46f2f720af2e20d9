import { createHttpClient } from "../../src/client/index.js";
import type { DdsService } from "../../src/contract/service.js";
import { RULES, setupMortgageModels } from "../contract/mortgage-models.js";
import type { Harness } from "./harness.js";

/** Ids of one workspace's resources of every kind, for route tests. */
export interface Seeded {
  client: DdsService;
  models: Record<"Employment" | "Applicant" | "Loan", string>;
  fieldId: string;
  contextId: string;
  contributionId: string;
  loanRecordId: string;
  applicantRecordId: string;
  ruleId: string;
  webhookId: string;
  /** A delivery of the webhook (for the routes that name one). */
  deliveryId: string;
}

/**
 * Seeds a workspace through the HTTP client: the mortgage models (active), a rule, a
 * resolved context with a loan linked to an applicant, and a webhook with deliveries.
 */
export async function seedWorkspace(h: Harness, token: string): Promise<Seeded> {
  const client = createHttpClient({ baseUrl: `${h.origin}/v1`, token });
  const models = await setupMortgageModels(client);
  const ruleId = (await client.createRule(RULES.dti as never)).ruleId;
  const contextId = (await client.createContext({ name: "seed", type: "mortgage" })).contextId;
  const base = { contextId, sourceType: "document" as const };
  const contribution = await client.createContribution({ ...base, modelId: models.Loan, sourceId: "form", data: { amount: 200000, propertyValue: 250000, monthlyDebt: 1000 } });
  const applicant = await client.createContribution({ ...base, modelId: models.Applicant, sourceId: "form", data: { applicantId: "a1", name: "Ada" } });
  await client.createContribution({ ...base, modelId: models.Employment, sourceId: "slip", data: { employmentId: "e1", applicantId: "a1", monthlyIncome: 5000 } });
  const run = await client.runPipeline({ contextIds: [contextId], timeoutMs: 10_000 });
  if (run.resolved[0] !== contextId) throw new Error(`seed context did not resolve: ${JSON.stringify(run)}`);
  const loan = await client.getModel(models.Loan);
  const webhookId = (await client.createWebhook({ url: "http://127.0.0.1:9/hook", events: ["context.resolved", "context.status_changed"] })).webhookId;
  // Completed and reopened: two deliveries, and the context is active as before.
  await client.setContextStatus(contextId, "completed");
  await client.setContextStatus(contextId, "active");
  const deliveryId = (await client.listWebhookDeliveries(webhookId)).data[0].deliveryId;
  return {
    client,
    models,
    fieldId: loan.fields[0].fieldId,
    contextId,
    contributionId: contribution.contributionId,
    loanRecordId: contribution.recordId,
    applicantRecordId: applicant.recordId,
    ruleId,
    webhookId,
    deliveryId,
  };
}
