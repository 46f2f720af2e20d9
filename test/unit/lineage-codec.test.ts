import { describe, expect, it } from "vitest";
import type { FieldLineage } from "../../src/contract/schemas/index.js";
import { decodeLineage, encodeLineage, sameLineage } from "../../src/engine/store/lineage-codec.js";

const won = (contributionId: string, sourceId: string, confidence: number | null, candidates = 1): FieldLineage => ({
  contributionId,
  sourceId,
  sourceType: "document",
  confidence,
  policy: "highest_confidence",
  candidates,
});

describe("the stored lineage", () => {
  it("round-trips every field, with shared, distinct and missing sources", () => {
    const lineage: Record<string, FieldLineage> = {
      amount: won("0190a0f0-0000-7000-8000-000000000001", "form", 0.9, 2),
      propertyValue: won("0190a0f0-0000-7000-8000-000000000001", "form", 1),
      monthlyDebt: { ...won("0190a0f0-0000-7000-8000-000000000002", "bureau", null, 3), sourceType: "integration", policy: "majority" },
      ltv: { contributionId: null, sourceId: null, sourceType: null, confidence: null, policy: "computed", candidates: 0 },
    };
    const text = encodeLineage(lineage);
    expect(decodeLineage(text)).toEqual(lineage);
    // The winning contribution is stored once, not once per field.
    expect(text.split("0190a0f0-0000-7000-8000-000000000001")).toHaveLength(2);
    expect(text.length).toBeLessThan(JSON.stringify(lineage).length / 2);
  });

  it("stores the usual case in a few bytes: one winner, confidence 1, one candidate, the usual policy", () => {
    const id = "0190a0f0-0000-7000-8000-000000000004";
    const lineage = { ssn: won(id, "feed-0", 1), name: won(id, "feed-0", 1), score: won(id, "feed-0", 0.54) };
    const text = encodeLineage(lineage);
    expect(text).toBe(`[3,[["${id}","feed-0","document"]],"highest_confidence",{"ssn":0,"name":0,"score":[0,0.54]}]`);
    expect(decodeLineage(text)).toEqual(lineage);
  });

  it("reads the lineage every earlier version stored, and tells an old text that says the same from one that differs", () => {
    const v2 = '[2,[["0190a0f0-0000-7000-8000-000000000005","form","document"]],{"amount":[0,0.5,"highest_confidence",1],"ltv":[-1,null,"computed",0]}]';
    const decoded = { amount: won("0190a0f0-0000-7000-8000-000000000005", "form", 0.5), ltv: { contributionId: null, sourceId: null, sourceType: null, confidence: null, policy: "computed", candidates: 0 } };
    expect(decodeLineage(v2)).toEqual(decoded);
    expect(sameLineage(v2, encodeLineage(decoded as Record<string, FieldLineage>))).toBe(true);
    expect(sameLineage(v2, encodeLineage({ amount: won("0190a0f0-0000-7000-8000-000000000005", "form", 0.6) }))).toBe(false);
    expect(sameLineage(null, encodeLineage({}))).toBe(false);
  });

  it("reads lineage stored before the compact form as it was written", () => {
    const old = { amount: won("0190a0f0-0000-7000-8000-000000000003", "form", 0.5) };
    expect(decodeLineage(JSON.stringify(old))).toEqual(old);
    expect(decodeLineage("{}")).toEqual({});
    expect(decodeLineage(encodeLineage({}))).toEqual({});
  });
});
