import { describe, expect, it } from "vitest";
import { collectVarReads } from "../../../src/portable/json-logic/collect-var-paths.js";
import { checkRulePaths, mapRulePath, type RulePathModel } from "../../../src/portable/rule-paths.js";

const MODELS: RulePathModel[] = [
  { modelId: "m-loan", name: "Loan", fields: [{ name: "amount" }, { name: "dti", computed: { expression: 1 } }], relationships: [{ name: "applicants", target: "m-app" }, { name: "broken", target: "Gone" }] },
  { modelId: "m-app", name: "Applicant", fields: [{ name: "income" }], relationships: [] },
];

describe("rule paths against the models", () => {
  it("places each static read at the node that reads it", () => {
    const expression = { and: [{ "<=": [{ var: "Loan.amount" }, 1] }, { var: ["Loan.x", 0] }, { missing: ["a", "b"] }, { missing_some: [1, ["c"]] }, { all: [{ var: "Applicant" }, { var: "inner" }] }] };
    expect(collectVarReads(expression)).toEqual([
      { path: "Loan.amount", at: "and.0.<=.0.var" },
      { path: "Loan.x", at: "and.1.var" },
      { path: "a", at: "and.2.missing.0" },
      { path: "b", at: "and.2.missing.1" },
      { path: "c", at: "and.3.missing_some.1.0" },
      { path: "Applicant", at: "and.4.all.0.var" },
    ]);
  });

  it("knows fields, relationships, whole models and the context", () => {
    expect(mapRulePath(MODELS, "Loan.amount")).toEqual({ path: "Loan.amount", kind: "field", reads: "Loan.amount" });
    expect(mapRulePath(MODELS, "Loan.dti").kind).toBe("computed");
    expect(mapRulePath(MODELS, "Loan.applicants.income")).toEqual({ path: "Loan.applicants.income", kind: "field", reads: "Applicant.income", via: "Loan.applicants" });
    expect(mapRulePath(MODELS, "Loan").kind).toBe("model");
    for (const p of ["context", "context.type", "context.metadata", "context.metadata.region.code"]) expect(mapRulePath(MODELS, p).kind, p).toBe("context");
  });

  it("says what is wrong and what there is instead", () => {
    const problem = (path: string) => mapRulePath(MODELS, path).problem;
    expect(problem("Loan.noSuchField")).toBe('Loan has no field or relationship "noSuchField" (fields: amount, dti; relationships: applicants, broken)');
    expect(problem("loan.amount")).toBe('no model named "loan" (models: Applicant, Loan; names are case-sensitive)');
    expect(problem("Loan.amount.x")).toBe("Loan.amount is a field: a path ends at a field (x cannot be read)");
    expect(problem("Loan.applicants.nope")).toBe('Applicant (the target of Loan.applicants) has no field "nope" (fields: income)');
    expect(problem("Loan.applicants.income.x")).toMatch(/^Applicant\.income is a field/);
    expect(problem("Loan.broken")).toBe('the target of Loan.broken, model "Gone", does not exist');
    expect(problem("context.nope")).toMatch(/^the context has no property "nope"/);
    expect(problem("context.type.x")).toMatch(/^the context has no property "type\.x"/);
    expect(mapRulePath([], "Loan.amount").problem).toBe('no model named "Loan" (the workspace has no models; names are case-sensitive)');
  });

  it("checks every static read, not computed paths or paths relative to elements", () => {
    const expression = { and: [{ var: "Loan.nope" }, { var: { cat: ["Loan.", "nope"] } }, { some: [{ var: "Applicant" }, { var: "whatever" }] }, { missing: ["Loan.gone"] }] };
    expect(checkRulePaths(expression, MODELS)).toEqual([
      { path: "and.0.var", message: expect.stringMatching(/^"Loan\.nope": Loan has no field/) },
      { path: "and.3.missing.0", message: expect.stringMatching(/^"Loan\.gone": Loan has no field/) },
    ]);
    expect(checkRulePaths({ "<=": [{ var: "Loan.amount" }, { var: "context.metadata.x" }] }, MODELS)).toEqual([]);
  });
});
