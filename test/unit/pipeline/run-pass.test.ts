import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildRecordData, canonicalJson, runPass, sha256Of, toJsonValue } from "../../../src/engine/pipeline/stages/index.js";
import { MODEL, REC, fid, mortgageInput, mortgageModels, uuid } from "./fixtures.js";

describe("runPass on the mortgage case", () => {
  const output = runPass(mortgageInput());
  const record = (id: string) => output.records.find((r) => r.id === id)!;

  it("resolves, computes across models and sorts records by id", () => {
    expect(output.records.map((r) => r.id)).toEqual([REC.loan, REC.a1, REC.a2, REC.e1, REC.e2, REC.e3]);
    expect(record(REC.e1).data).toEqual({ employmentId: "E1", applicantId: "A1", employer: "Acme", annualSalary: 60000, monthlyIncome: 5000 });
    expect(record(REC.a1).data).toEqual({ applicantId: "A1", name: "Ada", creditScore: 700, totalIncome: 7000 });
    expect(record(REC.a2).data.totalIncome).toBe(4000);
    expect(record(REC.loan).data).toEqual({
      amount: 300000,
      debt: 2000,
      purpose: "purchase",
      closingDate: "2026-03-15",
      dti: 2000 / 11000,
    });
  });

  it("gives lineage in field order, computed fields included", () => {
    const lineage = record(REC.loan).lineage;
    expect(Object.keys(lineage)).toEqual(["amount", "debt", "purpose", "closingDate", "dti"]);
    expect(lineage.amount).toMatchObject({ policy: "highest_confidence", candidates: 2, confidence: 1, sourceType: "document" });
    expect(lineage.dti).toEqual({ contributionId: null, sourceId: null, sourceType: null, confidence: null, policy: "computed", candidates: 0 });
  });

  it("links Loan.applicants to every applicant and employments by match", () => {
    expect(output.links.map((l) => [l.sourceRecordId, l.name, l.targetRecordId])).toEqual([
      [REC.loan, "applicants", REC.a1],
      [REC.loan, "applicants", REC.a2],
      [REC.a1, "employments", REC.e1],
      [REC.a1, "employments", REC.e2],
      [REC.a2, "employments", REC.e3],
    ]);
  });

  it("evaluates every rule, sorted by rule id", () => {
    expect(output.evaluations.map((e) => e.ruleId)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => uuid(70, n)));
    expect(output.evaluations.every((e) => e.outcome)).toBe(true);
    expect(output.evaluations[1].trace.inputs).toEqual({ "Loan.dti": 2000 / 11000 });
  });

  it("hashes the canonical JSON of data", () => {
    const loan = record(REC.loan);
    const canonical = `{"amount":300000,"closingDate":"2026-03-15","debt":2000,"dti":${2000 / 11000},"purpose":"purchase"}`;
    expect(loan.sha256).toBe(createHash("sha256").update(canonical).digest("hex"));
    expect(loan.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reports validation issues of resolved and computed values", () => {
    const input = mortgageInput();
    const loan = input.models[0];
    input.contributions = input.contributions.filter((c) => c.recordId !== REC.loan);
    const out = runPass(input);
    const loanRecord = out.records.find((r) => r.id === REC.loan)!;
    expect(loanRecord.issues).toEqual([{ field: "amount", code: "required", message: "amount is required" }]);
    // debt is missing, so dti = null / 11000 = 0 (JSON Logic casts null to 0).
    expect(loanRecord.data).toEqual({ dti: 0 });
    expect(loan.modelId).toBe(MODEL.loan);
  });

  it("skips records whose model has no compiled definition", () => {
    const input = mortgageInput();
    input.models = input.models.filter((m) => m.modelId !== MODEL.employment);
    const out = runPass(input);
    expect(out.records.map((r) => r.id)).toEqual([REC.loan, REC.a1, REC.a2]);
    expect(out.records.find((r) => r.id === REC.a1)!.data.totalIncome).toBe(0);
  });
});

describe("buildRecordData and sha256Of", () => {
  const [loan] = mortgageModels();

  it("keys by current names in field order, omits undefined and keeps null", () => {
    const values = { [fid(loan, "purpose")]: null, [fid(loan, "amount")]: 5, [fid(loan, "debt")]: undefined };
    const data = buildRecordData(loan, values);
    expect(Object.keys(data)).toEqual(["amount", "purpose"]);
    expect(data).toEqual({ amount: 5, purpose: null });
    const renamed = { ...loan, fields: loan.fields.map((f) => (f.name === "amount" ? { ...f, name: "principal" } : f)) };
    expect(buildRecordData(renamed, values)).toEqual({ principal: 5, purpose: null });
  });

  it("is byte-identical for equal data whatever the key order", () => {
    const a = { b: [1, { y: 2, x: 1 }], a: "é", c: null };
    const b = { c: null, a: "é", b: [1, { x: 1, y: 2 }] };
    expect(sha256Of(a)).toBe(sha256Of(b));
    expect(sha256Of(a)).toBe(createHash("sha256").update('{"a":"é","b":[1,{"x":1,"y":2}],"c":null}').digest("hex"));
    expect(sha256Of({})).toBe(createHash("sha256").update("{}").digest("hex"));
    expect(sha256Of({ n: 1e21, f: 0.1 })).toBe(createHash("sha256").update('{"f":0.1,"n":1e+21}').digest("hex"));
  });

  it("keeps a parsed \"__proto__\" key as data and makes non-JSON numbers null", () => {
    const parsed = JSON.parse('{"__proto__":{"x":1},"a":2}') as Record<string, unknown>;
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"x":1},"a":2}');
    const safe = toJsonValue({ ...parsed, n: NaN, list: [Infinity, undefined, 1] });
    expect(canonicalJson(safe)).toBe('{"__proto__":{"x":1},"a":2,"list":[null,null,1],"n":null}');
    expect(canonicalJson({ n: NaN })).toBe('{"n":null}');
  });
});
