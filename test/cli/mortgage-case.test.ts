import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APPLICANT, EMPLOYMENT, LOAN, RULES } from "../contract/mortgage-models.js";
import { ddsctl, sandbox, type Sandbox } from "../helpers/cli.js";

/** Runs one command with a JSON body on stdin and returns the parsed stdout, asserting exit 0. */
async function json(box: Sandbox, args: string[], body?: unknown) {
  const r = await ddsctl(box, [...args, ...(body !== undefined ? ["-f", "-"] : []), "--json"], body !== undefined ? { input: JSON.stringify(body) } : {});
  expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r.json();
}

describe("a mortgage case built with ddsctl … -f - --json only", () => {
  let box: Sandbox;
  let contextId: string;
  let models: Record<string, string>;
  beforeAll(async () => {
    box = sandbox();
    models = {};
    for (const def of [EMPLOYMENT, APPLICANT, LOAN]) {
      models[def.name] = (await json(box, ["models", "create"], def)).modelId;
      expect((await json(box, ["models", "status", def.name, "active"])).status).toBe("active");
    }
    for (const rule of Object.values(RULES)) await json(box, ["rules", "create"], rule);
    contextId = (await json(box, ["contexts", "create"], { name: "case-1", type: "mortgage" })).contextId;
  });
  afterAll(() => box.cleanup());

  it("ingests conflicting evidence and resolves each field by its policy", async () => {
    const c = (modelId: string, sourceId: string, sourceType: string, data: object, fieldConfidences?: object) => ({ contextId, modelId, sourceId, sourceType, data, ...(fieldConfidences ? { fieldConfidences } : {}) });
    const bulk = await json(box, ["contributions", "add"], {
      items: [
        c(models.Loan, "form", "document", { amount: 240000, propertyValue: 300000, monthlyDebt: 2500 }),
        c(models.Loan, "valuation", "integration", { propertyValue: 320000 }, { propertyValue: 0.8 }),
        c(models.Applicant, "form", "document", { applicantId: "a1", name: "Ada", creditScore: 700 }),
        c(models.Applicant, "bureau", "integration", { applicantId: "a1", creditScore: 640 }, { creditScore: 0.6 }),
        c(models.Applicant, "form", "document", { applicantId: "a2", name: "Bo", creditScore: 680 }),
        c(models.Employment, "payslip", "document", { employmentId: "e1", applicantId: "a1", monthlyIncome: 5000 }),
        c(models.Employment, "payslip", "document", { employmentId: "e2", applicantId: "a2", monthlyIncome: 3000 }),
      ],
    });
    expect(bulk.summary).toEqual({ total: 7, succeeded: 7, failed: 0 });
    expect((await json(box, ["contexts", "get", contextId])).freshness).toBe("resolved");
    const records = (await json(box, ["records", "list", "--context", contextId])).data as { modelId: string; data: Record<string, unknown>; freshness: string }[];
    expect(records.every((r) => r.freshness === "resolved")).toBe(true);
    const loan = records.find((r) => r.modelId === models.Loan)!;
    expect(loan.data).toMatchObject({ amount: 240000, propertyValue: 320000, ltv: 0.75 });
    expect(loan.data.dti).toBeCloseTo(2500 / 8000, 10);
    const ada = records.find((r) => r.data.applicantId === "a1")!;
    expect(ada.data).toMatchObject({ creditScore: 640, annualIncome: 60000 });
  });

  it("shows evaluations with traces, and a link removal flips the dependent one", async () => {
    const evals = (await json(box, ["evaluations", "list", "--context", contextId])).data as { rule: { name: string }; outcome: boolean; ruleId: string }[];
    const dti = evals.find((e) => e.rule.name === "dti-limit")!;
    expect(dti.outcome).toBe(true);
    const traced = await json(box, ["trace", contextId, "dti-limit"]);
    expect(traced.evaluation.evaluationTrace.steps.op).toBe("<=");
    const loanId = (await json(box, ["records", "list", "--context", contextId, "--model", "Loan"])).data[0].recordId;
    const links = (await json(box, ["relationships", "list", loanId])).data as { targetRecordId: string }[];
    expect(links).toHaveLength(2);
    const bo = (await json(box, ["records", "list", "--context", contextId, "--model", "Applicant"])).data.find((r: { data: { applicantId: string } }) => r.data.applicantId === "a2");
    const removed = await ddsctl(box, ["relationships", "remove", loanId, "applicants", bo.recordId, "--json"]);
    expect(removed.exitCode).toBe(0);
    expect(removed.stdout).toBe("");
    const after = await json(box, ["evaluations", "list", "--context", contextId, "--rule", "dti-limit"]);
    expect(after.outcome).toBe(false);
    expect(after.evaluationTrace.inputs["Loan.dti"]).toBeCloseTo(0.5, 10);
  });

  it("text output: the trace tree marks the failing comparison", async () => {
    const r = await ddsctl(box, ["trace", contextId, "dti-limit"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/<=/);
    expect(r.stdout).toMatch(/Loan\.dti/);
    expect(r.stdout).toMatch(/FAIL/);
  });
});
