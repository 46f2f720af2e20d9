import { describe, expect, it } from "vitest";
import type { CompiledModel } from "../../../src/engine/models/model-types.js";
import {
  computeFields,
  computedFieldOrder,
  ExpressionCache,
  linkRecords,
  resolveRecords,
  runPass,
} from "../../../src/engine/pipeline/stages/index.js";
import { REC, compileAll, compiledField, fid, mortgageInput, mortgageStoredModels, passRecord, uuid } from "./fixtures.js";

/** Resolve, link and compute the mortgage case; values of record `id` by field name. */
function computeMortgage(models?: CompiledModel[]) {
  const input = mortgageInput(models);
  const resolved = resolveRecords(input);
  const links = linkRecords(input.models, resolved, []);
  const out = computeFields([...input.models].reverse(), [...resolved].reverse(), links, new ExpressionCache());
  return (id: string, name: string) => {
    const r = out.find((x) => x.record.id === id)!;
    const model = input.models.find((m) => m.modelId === r.record.modelId)!;
    return r.values[fid(model, name)];
  };
}

describe("computedFieldOrder", () => {
  it("orders computed fields across models, dependencies first", () => {
    const models = compileAll(mortgageStoredModels());
    const { order, cyclic } = computedFieldOrder([...models].reverse());
    expect(order.map((n) => `${n.model.name}.${n.field.name}`)).toEqual([
      "Employment.monthlyIncome",
      "Applicant.totalIncome",
      "Loan.dti",
    ]);
    expect(cyclic).toEqual([]);
  });

  it("reports a cycle instead of looping, and still orders what depends on it", () => {
    const expr = (v: string) => ({ expression: { "+": [{ var: v }, 1] }, deps: [] as never[] });
    const x = compiledField({ fieldId: uuid(9, 1), name: "x", computed: { ...expr("y"), deps: [{ kind: "field", path: "y", fieldId: uuid(9, 2) }] } });
    const y = compiledField({ fieldId: uuid(9, 2), name: "y", computed: { ...expr("x"), deps: [{ kind: "field", path: "x", fieldId: uuid(9, 1) }] } });
    const z = compiledField({ fieldId: uuid(9, 3), name: "z", computed: { expression: { "==": [{ var: "x" }, null] }, deps: [{ kind: "field", path: "x", fieldId: uuid(9, 1) }] } });
    const self = compiledField({ fieldId: uuid(9, 4), name: "s", computed: { ...expr("s"), deps: [{ kind: "field", path: "s", fieldId: uuid(9, 4) }] } });
    const model: CompiledModel = { modelId: uuid(1, 9), name: "Odd", version: 1, identity: [], relationships: [], computedOrder: [], fields: [x, y, z, self] };
    const { order, cyclic } = computedFieldOrder([model]);
    expect(order.map((n) => n.field.name)).toEqual(["z"]);
    expect(cyclic.map((n) => n.field.name).sort()).toEqual(["s", "x", "y"]);

    const rec = passRecord(uuid(60, 1), model.modelId, null);
    const [out] = computeFields([model], [{ record: rec, values: {} }], [], new ExpressionCache());
    // Cyclic fields are null, and z, downstream, still runs and reads that null.
    expect(out.values).toEqual({ [uuid(9, 1)]: null, [uuid(9, 2)]: null, [uuid(9, 3)]: true, [uuid(9, 4)]: null });
  });
});

describe("computeFields", () => {
  it("computes Employment → Applicant → Loan in order, whatever the input order", () => {
    const value = computeMortgage();
    expect(value(REC.e1, "monthlyIncome")).toBe(5000);
    expect(value(REC.e2, "monthlyIncome")).toBe(2000);
    expect(value(REC.a1, "totalIncome")).toBe(7000);
    expect(value(REC.a2, "totalIncome")).toBe(4000);
    expect(value(REC.loan, "dti")).toBeCloseTo(2000 / 11000, 12);
  });

  it("does not change its input", () => {
    const input = mortgageInput();
    const resolved = resolveRecords(input);
    const before = JSON.stringify(resolved);
    computeFields(input.models, resolved, linkRecords(input.models, resolved, []), new ExpressionCache());
    expect(JSON.stringify(resolved)).toBe(before);
  });

  it("gives null for a runtime error, a non-finite result or an expression that no longer compiles", () => {
    const stored = mortgageStoredModels();
    const loan = stored[0];
    loan.fields[4].computed = { expression: { "/": [{ var: "debt" }, 0] } };
    const broken = compileAll(stored);
    expect(computeMortgage(broken)(REC.loan, "dti")).toBeNull();

    loan.fields[4].computed = { expression: { var: { cat: ["__pro", "to__"] } } };
    expect(computeMortgage(compileAll(stored))(REC.loan, "dti")).toBeNull();

    const models = compileAll(mortgageStoredModels());
    models[0].fields[4] = { ...models[0].fields[4], computed: { expression: { nope: [1] }, deps: [] } };
    expect(computeMortgage(models)(REC.loan, "dti")).toBeNull();
  });

  // Applicant.jobs reads `employments` whole and Employment.whoAll reads `applicant` whole:
  // a loop only through bare-relationship reads, which activation accepts, so nothing is nulled.
  it("reads `rel` alone as the linked records' data, and `one` relationships as single values", () => {
    const stored = mortgageStoredModels();
    stored[1].fields.push({ ...stored[1].fields[3], id: uuid(3, 9), name: "jobs", computed: { expression: { count: { var: "employments" } } } });
    stored[1].fields.push({ ...stored[1].fields[3], id: uuid(3, 10), name: "firstEmployer", type: "json", computed: { expression: { var: "employments" } } });
    stored[2].relationships = [{ name: "applicant", target: "Applicant", cardinality: "one", match: { sourceField: "applicantId", targetField: "applicantId" } }];
    stored[2].fields.push({ ...stored[2].fields[4], id: uuid(4, 9), name: "who", type: "string", computed: { expression: { var: "applicant.name" } } });
    stored[2].fields.push({ ...stored[2].fields[4], id: uuid(4, 10), name: "whoAll", type: "json", computed: { expression: { var: "applicant" } } });
    const value = computeMortgage(compileAll(stored));
    expect(value(REC.a1, "jobs")).toBe(2);
    expect(value(REC.a2, "jobs")).toBe(1);
    const employments = value(REC.a2, "firstEmployer") as Record<string, unknown>[];
    // The whole target data, computed fields included (they come first in the order).
    expect(employments).toEqual([
      { employmentId: "E3", applicantId: "A2", employer: "Globex", annualSalary: 48000, monthlyIncome: 4000, who: "Grace" },
    ]);
    expect(value(REC.e3, "who")).toBe("Grace");
    expect(value(REC.e1, "whoAll")).toMatchObject({ applicantId: "A1", name: "Ada" });
  });

  it("compiles each expression once, across passes", () => {
    const cache = new ExpressionCache();
    const input = mortgageInput();
    runPass(input, { cache });
    const size = cache.size;
    expect(size).toBe(3 + input.rules.length);
    runPass(input, { cache });
    expect(cache.size).toBe(size);
  });
});
