import { describe, expect, it } from "vitest";
import type { Model, Rule } from "../../../src/contract/schemas/index.js";
import { readersOf, ruleDependencies, ruleReads } from "../../../src/portable/workbench/rules-eval/rule-deps.js";
import { mapRulePath } from "../../../src/portable/rule-paths.js";

const T = "2026-01-01T00:00:00.000Z";
const model = (name: string, fields: [string, unknown?][], relationships: Model["relationships"] = [], identity: string[] = []): Model => ({
  modelId: `id-${name}`,
  name,
  description: "",
  status: "active",
  version: 1,
  identity,
  relationships,
  createdAt: T,
  updatedAt: T,
  fields: fields.map(([f, expression]) => ({
    fieldId: `${name}.${f}`,
    modelId: `id-${name}`,
    name: f,
    type: "number",
    description: "",
    required: false,
    validation: null,
    resolution: { policy: "highest_confidence" },
    computed: expression === undefined ? null : { expression },
    createdAt: T,
    updatedAt: T,
  })),
});
const rule = (name: string, expression: unknown): Rule => ({ ruleId: `r-${name}`, name, description: "", category: "credit", severity: "low", expression, contextTypes: [], status: "active", version: 1, createdAt: T, updatedAt: T });

const MODELS = [
  model("Employment", [["applicantId"], ["monthlyIncome"]], [], ["applicantId"]),
  model("Applicant", [["applicantId"], ["creditScore"], ["annualIncome", { "*": [{ sum: [{ var: "employments.monthlyIncome" }] }, 12] }]], [
    { name: "employments", target: "Employment", cardinality: "many" },
  ]),
  model("Loan", [["monthlyDebt"], ["dti", { "/": [{ var: "monthlyDebt" }, { sum: [{ var: "applicants.annualIncome" }] }] }]], [
    { name: "applicants", target: "id-Applicant", cardinality: "many" },
  ]),
];
const RULES = [
  rule("dti-limit", { "<=": [{ var: "Loan.dti" }, 0.43] }),
  rule("income-floor", { all: [{ var: "Loan.applicants.annualIncome" }, { ">": [{ var: "" }, 0] }] }),
  rule("typed", { "==": [{ var: "context.type" }, "mortgage"] }),
];

describe("rules deps", () => {
  it("maps rule paths to Model.field", () => {
    expect(ruleReads(MODELS, RULES[0])).toEqual([{ path: "Loan.dti", kind: "computed", reads: "Loan.dti" }]);
    expect(ruleReads(MODELS, RULES[1])).toEqual([{ path: "Loan.applicants.annualIncome", kind: "computed", reads: "Applicant.annualIncome", via: "Loan.applicants" }]);
    expect(ruleReads(MODELS, RULES[2])).toEqual([{ path: "context.type", kind: "context", reads: "context.type" }]);
    expect(mapRulePath(MODELS, "Applicant")).toEqual({ path: "Applicant", kind: "model", reads: "Applicant" });
    expect(mapRulePath(MODELS, "Nope.x")).toMatchObject({ path: "Nope.x", kind: "unknown", reads: null, problem: expect.stringContaining('no model named "Nope"') });
  });

  it("reversed: computed fields and rules reading a field, directly or through computed fields", () => {
    expect(readersOf(MODELS, RULES, "Employment.monthlyIncome")).toEqual([
      { kind: "computed", name: "Applicant.annualIncome", path: "employments.monthlyIncome", via: [] },
      { kind: "computed", name: "Loan.dti", path: "applicants.annualIncome", via: ["Applicant.annualIncome"] },
      { kind: "rule", name: "income-floor", ruleId: "r-income-floor", path: "Loan.applicants.annualIncome", via: ["Applicant.annualIncome"] },
      { kind: "rule", name: "dti-limit", ruleId: "r-dti-limit", path: "Loan.dti", via: ["Applicant.annualIncome", "Loan.dti"] },
    ]);
    expect(readersOf(MODELS, RULES, "Applicant.creditScore")).toEqual([]);
  });
});

describe("ruleDependencies", () => {
  it("walks through computed fields down to stored ones, and agrees with readersOf both ways", () => {
    const rules = [rule("dti", { "<": [{ var: "Loan.dti" }, 0.43] }), rule("score", { ">": [{ var: "Applicant.creditScore" }, 600] })];
    const deps = ruleDependencies(MODELS, rules[0]);
    expect(deps.map((d) => [d.reads, d.kind, d.through])).toEqual([
      ["Loan.dti", "computed", []],
      ["Loan.monthlyDebt", "field", ["Loan.dti"]],
      ["Applicant.annualIncome", "computed", ["Loan.dti"]],
      ["Employment.monthlyIncome", "field", ["Loan.dti", "Applicant.annualIncome"]],
    ]);
    const stored = MODELS.flatMap((m) => m.fields.filter((f) => !f.computed).map((f) => `${m.name}.${f.name}`));
    for (const field of stored) {
      const byReaders = readersOf(MODELS, rules, field)
        .filter((r) => r.kind === "rule")
        .map((r) => r.name)
        .sort();
      const byDeps = rules.filter((r) => ruleDependencies(MODELS, r).some((d) => d.reads === field)).map((r) => r.name).sort();
      expect(byDeps, field).toEqual(byReaders);
    }
  });
});
