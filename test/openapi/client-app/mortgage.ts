// The mortgage case through a client generated from /v1/openapi.json (openapi-typescript
// types + openapi-fetch). Compiled with tsc against the generated `schema.d.ts` written
// beside it by test/openapi/generated-client.test.ts, so every path, body and answer below
// is checked against the document. Not part of the project's own type-check (the schema
// exists only while that test runs).
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Contribution = components["schemas"]["ContributionCreate"];

/** What the run saw, for the test to assert. */
export interface MortgageOutcome {
  bulk: { total: number; succeeded: number; failed: number; statuses: number[]; failedCode: string | undefined };
  loan: { amount: unknown; propertyValue: unknown; ltv: unknown; dti: unknown };
  evaluations: Record<string, boolean>;
  critical: string[];
  conflictCode: string | undefined;
  notFoundStatus: number;
  replayed: string | null;
}

function ok<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) throw new Error(`${r.response.status}: ${JSON.stringify(r.error)}`);
  return r.data;
}

/** Runs the case against `baseUrl` (the server's origin) with an admin token. */
export async function runMortgage(baseUrl: string, token: string): Promise<MortgageOutcome> {
  const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` }, querySerializer: { array: { style: "form", explode: false } } });
  const models: Record<string, string> = {};
  const defs: components["schemas"]["ModelCreate"][] = [
    {
      name: "Employment",
      identity: ["employmentId"],
      fields: [
        { name: "employmentId", type: "string" },
        { name: "applicantId", type: "string" },
        { name: "monthlyIncome", type: "number", validation: { min: 0 }, resolution: { policy: "latest" } },
      ],
    },
    {
      name: "Applicant",
      identity: ["applicantId"],
      fields: [
        { name: "applicantId", type: "string" },
        { name: "creditScore", type: "integer", resolution: { policy: "source_priority", sourcePriority: ["integration", "document"] } },
        { name: "annualIncome", type: "number", computed: { expression: { "*": [{ sum: [{ var: "employments.monthlyIncome" }] }, 12] } } },
      ],
      relationships: [{ name: "employments", target: "Employment", cardinality: "many", match: { sourceField: "applicantId", targetField: "applicantId" } }],
    },
    {
      name: "Loan",
      fields: [
        { name: "amount", type: "number", required: true, validation: { min: 1000 } },
        { name: "propertyValue", type: "number", resolution: { policy: "max" } },
        { name: "monthlyDebt", type: "number" },
        { name: "ltv", type: "number", computed: { expression: { "/": [{ var: "amount" }, { var: "propertyValue" }] } } },
        { name: "dti", type: "number", computed: { expression: { "/": [{ var: "monthlyDebt" }, { "/": [{ sum: [{ var: "applicants.annualIncome" }] }, 12] }] } } },
      ],
      relationships: [{ name: "applicants", target: "Applicant", cardinality: "many" }],
    },
  ];
  for (const def of defs) {
    const model = ok(await api.POST("/v1/models", { body: def }));
    ok(await api.PUT("/v1/models/{modelId}/status/{targetStatus}", { params: { path: { modelId: model.modelId, targetStatus: "active" } } }));
    models[model.name] = model.modelId;
  }
  const rules: components["schemas"]["RuleCreate"][] = [
    { name: "dti-limit", category: "affordability", severity: "high", expression: { "<=": [{ var: "Loan.dti" }, 0.43] } },
    { name: "ltv-limit", category: "eligibility", severity: "critical", expression: { "<=": [{ var: "Loan.ltv" }, 0.8] } },
  ];
  for (const rule of rules) ok(await api.POST("/v1/rules", { body: rule }));
  const context = ok(await api.POST("/v1/contexts", { body: { name: "case-1", type: "mortgage" } }));
  const c = (modelId: string, sourceId: string, sourceType: Contribution["sourceType"], data: Record<string, unknown>): Contribution => ({ contextId: context.contextId, modelId, sourceId, sourceType, data });
  const bulkRes = await api.POST("/v1/contributions/bulk", {
    params: { header: { "Idempotency-Key": "mortgage-bulk-1" } },
    body: {
      items: [
        c(models.Loan, "app-form", "document", { amount: 240000, propertyValue: 300000, monthlyDebt: 1500 }),
        c(models.Loan, "valuation", "integration", { propertyValue: 320000 }),
        c(models.Applicant, "app-form", "document", { applicantId: "a1", creditScore: 700 }),
        c(models.Employment, "payslip", "document", { employmentId: "e1", applicantId: "a1", monthlyIncome: 8000 }),
        c(models.Loan, "x", "document", { amount: "lots" }),
      ],
    },
  });
  const bulk = ok(bulkRes);
  const replay = await api.POST("/v1/contributions/bulk", { params: { header: { "Idempotency-Key": "mortgage-bulk-1" } }, body: { items: [c(models.Loan, "x", "document", {})] } });
  // The server's worker resolves the case; poll its freshness as any client would.
  for (;;) {
    const ctx = ok(await api.GET("/v1/contexts/{contextId}", { params: { path: { contextId: context.contextId }, query: { include: ["summary"] } } }));
    if (ctx.freshness === "resolved") break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const records = ok(await api.GET("/v1/records", { params: { query: { "filter[contextId][eq]": context.contextId, "filter[modelId][eq]": models.Loan, sort: ["-createdAt"] } } }));
  const loan = records.data[0].data;
  const evals = ok(await api.GET("/v1/contexts/{contextId}/evaluations", { params: { path: { contextId: context.contextId } } }));
  const critical = ok(await api.GET("/v1/contexts/{contextId}/evaluations", { params: { path: { contextId: context.contextId }, query: { "filter[rule.severity][eq]": "critical" } } }));
  const conflict = await api.DELETE("/v1/models/{modelId}", { params: { path: { modelId: models.Loan } } });
  const missing = await api.GET("/v1/contexts/{contextId}", { params: { path: { contextId: "01900000-0000-7000-8000-000000000000" } } });
  return {
    bulk: { ...bulk.summary, statuses: bulk.items.map((i) => i.status), failedCode: bulk.items[4].error?.code },
    loan: { amount: loan.amount, propertyValue: loan.propertyValue, ltv: loan.ltv, dti: loan.dti },
    evaluations: Object.fromEntries(evals.data.map((e) => [e.rule.name, e.outcome])),
    critical: critical.data.map((e) => e.rule.name),
    conflictCode: conflict.error?.code,
    notFoundStatus: missing.response.status,
    replayed: replay.response.headers.get("idempotent-replayed"),
  };
}
