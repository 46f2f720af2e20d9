import { describe, expect, it } from "vitest";
import type { PassInput } from "../../../src/engine/pipeline/types.js";
import { compileExpression } from "../../../src/portable/json-logic/index.js";
import { createContextResolver, runPass } from "../../../src/engine/pipeline/stages/index.js";
import { REC, at, compileAll, fid, mortgageInput, mortgageStoredModels } from "./fixtures.js";

function resolverFor(input: PassInput) {
  const out = runPass(input);
  return createContextResolver(input, out.records, out.links);
}

describe("createContextResolver", () => {
  const input = mortgageInput();
  const r = resolverFor(input);
  const a1 = { applicantId: "A1", name: "Ada", creditScore: 700, totalIncome: 7000 };
  const a2 = { applicantId: "A2", name: "Grace", creditScore: 680, totalIncome: 4000 };

  it("reads a singleton model's field, and its whole data", () => {
    expect(r.get("Loan.amount")).toBe(300000);
    expect(r.get("Loan")).toEqual({ amount: 300000, debt: 2000, purpose: "purchase", closingDate: "2026-03-15", dti: 2000 / 11000 });
  });

  it("reads an identity model as arrays over its records, oldest first", () => {
    expect(r.get("Applicant.totalIncome")).toEqual([7000, 4000]);
    expect(r.get("Applicant")).toEqual([a1, a2]);
    const flipped = mortgageInput();
    flipped.records.find((x) => x.id === REC.a2)!.createdAt = at(-5);
    expect(resolverFor(flipped).get("Applicant.applicantId")).toEqual(["A2", "A1"]);
  });

  it("gives null in the array where a record has no value", () => {
    const partial = mortgageInput();
    const nameId = fid(partial.models[1], "name");
    for (const c of partial.contributions) if (c.recordId === REC.a2) delete c.data[nameId];
    expect(resolverFor(partial).get("Applicant.name")).toEqual(["Ada", null]);
  });

  it("reads through relationships of a singleton", () => {
    expect(r.get("Loan.applicants.totalIncome")).toEqual([7000, 4000]);
    expect(r.get("Loan.applicants")).toEqual([a1, a2]);
  });

  it("flattens relationship paths over the records of an identity model", () => {
    expect(r.get("Applicant.employments.monthlyIncome")).toEqual([5000, 2000, 4000]);
    expect((r.get("Applicant.employments") as { employmentId: string }[]).map((e) => e.employmentId)).toEqual(["E1", "E2", "E3"]);
  });

  it("reads `one` relationships as single values (flattened for identity sources)", () => {
    const stored = mortgageStoredModels();
    stored[2].relationships = [{ name: "applicant", target: "Applicant", cardinality: "one", match: { sourceField: "applicantId", targetField: "applicantId" } }];
    stored[1].relationships.push({ name: "loan", target: "Loan", cardinality: "one" });
    const withOne = resolverFor(mortgageInput(compileAll(stored)));
    expect(withOne.get("Employment.applicant.name")).toEqual(["Ada", "Ada", "Grace"]);
    expect(withOne.get("Applicant.loan.amount")).toEqual([300000, 300000]);
    expect((withOne.get("Employment.applicant") as unknown[]).length).toBe(3);
  });

  it("reads the context and walks into metadata", () => {
    expect(r.get("context.type")).toBe("mortgage");
    expect(r.get("context.name")).toBe("Smith purchase");
    expect(r.get("context.id")).toBe(input.context.id);
    expect(r.get("context.metadata.region")).toBe("west");
    expect(r.get("context.metadata.branch.code")).toBe("W1");
    expect(r.get("context.metadata")).toEqual({ region: "west", branch: { code: "W1" } });
    expect(r.get("context.metadata.nope")).toBeUndefined();
    expect(r.get("context.metadata.region.length")).toBeUndefined();
  });

  it("refuses a path that names nothing the models have, saying what they have; names are case-sensitive", () => {
    for (const path of ["Nope.x", "Loan.nope", "loan.amount", "Loan.applicants.nope", "Loan.amount.x", "Loan.applicants.name.x", "context.nope"]) {
      expect(() => r.get(path), path).toThrow(`"${path}": `);
    }
    expect(() => r.get("Loan.nope")).toThrow(/Loan has no field or relationship "nope" \(fields: .*; relationships: applicants/);
    // A rule reading such a path (a field removed since it was saved) fails with that error, default or not.
    const run = compileExpression({ "<=": [{ var: ["Loan.nope", 7] }, 10] }).evaluate(r, { trace: true });
    expect(run.error).toMatch(/^"Loan\.nope": Loan has no field or relationship "nope"/);
    expect(run.result).toBeNull();
  });

  it("never walks into object internals", () => {
    for (const path of ["__proto__", "Loan.__proto__", "Loan.constructor", "Loan.constructor.name", "context.__proto__", "context.metadata.__proto__", "context.metadata.constructor", "Applicant.prototype", "Loan.applicants.__proto__"]) {
      expect(r.get(path), path).toBeNull();
    }
    expect(r.get("context.metadata.toString")).toBeUndefined();
    expect(r.get("context.metadata.hasOwnProperty")).toBeUndefined();
    const run = compileExpression({ var: { cat: ["Loan.", "__proto__"] } }).evaluate(r);
    expect(run.error).toMatch(/reserved segment/);
  });

  it("gives undefined for a singleton with no record, and [] for an empty identity model", () => {
    const empty = mortgageInput();
    empty.records = empty.records.filter((x) => x.id !== REC.loan);
    const e = resolverFor(empty);
    expect(e.get("Loan.amount")).toBeUndefined();
    expect(e.get("Loan")).toBeUndefined();
    expect(e.get("Loan.applicants.totalIncome")).toBeUndefined();
    const none = mortgageInput();
    none.records = none.records.filter((x) => x.modelId !== none.models[1].modelId);
    expect(resolverFor(none).get("Applicant.name")).toEqual([]);
  });

  it("gives the whole context for the empty path", () => {
    const whole = r.get("") as Record<string, unknown>;
    expect(Object.keys(whole)).toEqual(["Applicant", "Employment", "Loan", "context"]);
    expect(whole.Applicant).toEqual([a1, a2]);
  });
});
