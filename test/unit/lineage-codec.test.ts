import { describe, expect, it } from "vitest";
import type { FieldLineage } from "../../src/contract/schemas/index.js";
import { decodeLineage, encodeLineage } from "../../src/engine/store/lineage-codec.js";

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

  it("reads lineage stored before the compact form as it was written", () => {
    const old = { amount: won("0190a0f0-0000-7000-8000-000000000003", "form", 0.5) };
    expect(decodeLineage(JSON.stringify(old))).toEqual(old);
    expect(decodeLineage("{}")).toEqual({});
    expect(decodeLineage(encodeLineage({}))).toEqual({});
  });
});
