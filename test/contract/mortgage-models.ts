import type { DdsService } from "../../src/contract/service.js";

/** A small mortgage case: Employment and Applicant by identity, Loan a singleton. */
export const EMPLOYMENT = {
  name: "Employment",
  identity: ["employmentId"],
  fields: [
    { name: "employmentId", type: "string" },
    { name: "applicantId", type: "string" },
    { name: "employer", type: "string" },
    { name: "monthlyIncome", type: "number", validation: { min: 0 }, resolution: { policy: "latest" } },
  ],
};

export const APPLICANT = {
  name: "Applicant",
  identity: ["applicantId"],
  fields: [
    { name: "applicantId", type: "string" },
    { name: "name", type: "string", required: true },
    { name: "creditScore", type: "integer", resolution: { policy: "source_priority", sourcePriority: ["integration", "document", "user"] } },
    { name: "annualIncome", type: "number", computed: { expression: { "*": [{ sum: [{ var: "employments.monthlyIncome" }] }, 12] } } },
  ],
  relationships: [{ name: "employments", target: "Employment", cardinality: "many", match: { sourceField: "applicantId", targetField: "applicantId" } }],
};

export const LOAN = {
  name: "Loan",
  fields: [
    { name: "amount", type: "number", required: true, validation: { min: 1000 } },
    { name: "propertyValue", type: "number", resolution: { policy: "max" } },
    { name: "monthlyDebt", type: "number", resolution: { policy: "majority" } },
    { name: "ltv", type: "number", computed: { expression: { "/": [{ var: "amount" }, { var: "propertyValue" }] } } },
    {
      name: "dti",
      type: "number",
      computed: { expression: { "/": [{ var: "monthlyDebt" }, { "/": [{ sum: [{ var: "applicants.annualIncome" }] }, 12] }] } },
    },
  ],
  relationships: [{ name: "applicants", target: "Applicant", cardinality: "many" }],
};

export const RULES = {
  dti: { name: "dti-limit", category: "affordability", severity: "high", expression: { "<=": [{ var: "Loan.dti" }, 0.43] } },
  ltv: { name: "ltv-limit", category: "eligibility", severity: "critical", expression: { "<=": [{ var: "Loan.ltv" }, 0.8] } },
  credit: {
    name: "credit-floor",
    category: "credit",
    severity: "medium",
    expression: { all: [{ var: "Applicant.creditScore" }, { ">=": [{ var: "" }, 620] }] },
  },
};

/** Creates and activates the three models; returns their ids by name. */
export async function setupMortgageModels(service: DdsService): Promise<Record<"Employment" | "Applicant" | "Loan", string>> {
  const ids = {} as Record<"Employment" | "Applicant" | "Loan", string>;
  for (const def of [EMPLOYMENT, APPLICANT, LOAN]) {
    const model = await service.createModel(def as never);
    await service.setModelStatus(model.modelId, "active");
    ids[def.name as keyof typeof ids] = model.modelId;
  }
  return ids;
}
