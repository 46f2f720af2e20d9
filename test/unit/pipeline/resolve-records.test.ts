import { describe, expect, it } from "vitest";
import { resolveRecords } from "../../../src/engine/pipeline/stages/index.js";
import { MODEL, REC, contributeTo, fid, mortgageInput, passRecord, uuid } from "./fixtures.js";

describe("resolveRecords", () => {
  it("resolves every contributed, non-computed field by fieldId, lineage by name", () => {
    const input = mortgageInput();
    const [loan] = input.models;
    const out = resolveRecords(input);
    expect(out.map((r) => r.record.id)).toEqual([REC.loan, REC.a1, REC.a2, REC.e1, REC.e2, REC.e3]);
    const loanOut = out[0];
    expect(loanOut.values).toEqual({
      [fid(loan, "amount")]: 300000,
      [fid(loan, "debt")]: 2000,
      [fid(loan, "purpose")]: "purchase",
      [fid(loan, "closingDate")]: "2026-03-15",
    });
    expect(Object.keys(loanOut.lineage)).toEqual(["amount", "debt", "purpose", "closingDate"]);
    expect(loanOut.lineage.closingDate).toMatchObject({ policy: "latest", candidates: 2, sourceType: "user" });
  });

  it("defaults a missing confidence to 1.0 and reads per-field confidences", () => {
    const input = mortgageInput();
    const [loan] = input.models;
    input.contributions = [
      contributeTo(loan, REC.loan, { amount: 1 }, { confidences: { amount: 0.99 } }),
      contributeTo(loan, REC.loan, { amount: 2 }),
    ];
    const [loanOut] = resolveRecords(input);
    expect(loanOut.values[fid(loan, "amount")]).toBe(2);
    expect(loanOut.lineage.amount.confidence).toBe(1);
  });

  it("counts an explicit null as a candidate and ignores contributions without the key", () => {
    const input = mortgageInput();
    const [loan] = input.models;
    input.contributions = [
      contributeTo(loan, REC.loan, { amount: 5 }, { confidences: { amount: 0.5 } }),
      contributeTo(loan, REC.loan, { amount: null, debt: 3 }),
      contributeTo(loan, REC.loan, { debt: 4 }, { confidences: { debt: 0.1 } }),
    ];
    const [loanOut] = resolveRecords(input);
    expect(loanOut.values[fid(loan, "amount")]).toBeNull();
    expect(loanOut.lineage.amount.candidates).toBe(2);
    expect(loanOut.lineage.debt.candidates).toBe(2);
    expect(loanOut.values).not.toHaveProperty(fid(loan, "purpose"));
  });

  it("skips records of models without a compiled definition and keeps records without contributions", () => {
    const input = mortgageInput();
    input.records.push(passRecord(uuid(59, 1), uuid(1, 77), null), passRecord(uuid(59, 2), MODEL.loan, null));
    const out = resolveRecords(input);
    expect(out.map((r) => r.record.id)).not.toContain(uuid(59, 1));
    expect(out.find((r) => r.record.id === uuid(59, 2))).toMatchObject({ values: {}, lineage: {} });
  });
});
