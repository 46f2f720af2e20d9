import { describe, expect, it } from "vitest";
import type { Contribution, Field } from "../../../src/contract/schemas/index.js";
import { explainContributedField } from "../../../src/portable/workbench/explain/record-explain.js";

const field = (resolution: Field["resolution"], type: Field["type"] = "number"): Field => ({
  fieldId: "f1",
  modelId: "m1",
  name: "score",
  type,
  description: "",
  required: false,
  validation: null,
  resolution,
  computed: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});

let n = 0;
const contribution = (over: Partial<Contribution> & { value: unknown; confidence?: number }): Contribution => {
  n += 1;
  const { value, confidence, ...rest } = over;
  return {
    contributionId: `c${n}`,
    contextId: "x",
    modelId: "m1",
    recordId: "r1",
    sourceId: `s${n}`,
    sourceType: "document",
    data: { score: value },
    fieldConfidences: confidence === undefined ? {} : { score: confidence },
    status: "accepted",
    supersedes: null,
    observedAt: null,
    receivedAt: `2026-01-01T00:00:0${n % 10}.000Z`,
    createdBy: "test",
    ...rest,
  };
};

const reasons = (f: Field, cs: Contribution[]) =>
  explainContributedField(f, null, cs, null).candidates.map((c) => `${c.picked ? "*" : c.candidate ? "-" : "x"} ${c.contributionId}: ${c.reason}`);

describe("records explain: every candidate and why", () => {
  it("highest_confidence, with a superseded one and one below minConfidence", () => {
    n = 0;
    const cs = [
      contribution({ value: 700, confidence: 0.9, sourceId: "form", status: "superseded" }),
      contribution({ value: 640, confidence: 0.6, sourceType: "integration" }),
      contribution({ value: 720, confidence: 0.9, sourceId: "form", supersedes: "c1" }),
      contribution({ value: 600, confidence: 0.3 }),
    ];
    expect(reasons(field({ policy: "highest_confidence", minConfidence: 0.5 }), cs)).toEqual([
      "x c1: superseded by c3",
      "- c2: lower confidence 0.6 < 0.9",
      "* c3: highest confidence 0.9",
      "x c4: below minConfidence 0.5: ignored",
    ]);
    const e = explainContributedField(field({ policy: "highest_confidence", minConfidence: 0.5 }), 720, cs, null);
    expect(e).toMatchObject({ winner: "c3", policy: "highest_confidence", minConfidence: 0.5 });
  });

  it("source_priority names the order; ties within a source type fall to confidence", () => {
    n = 0;
    const cs = [
      contribution({ value: 700, sourceType: "document" }),
      contribution({ value: 640, sourceType: "integration", confidence: 0.6 }),
      contribution({ value: 650, sourceType: "integration", confidence: 0.5 }),
    ];
    expect(reasons(field({ policy: "source_priority", sourcePriority: ["integration", "document"] }), cs)).toEqual([
      "- c1: source priority: document after integration",
      "* c2: source priority: integration before document; tie broken by higher confidence 0.6 > 0.5",
      "- c3: lower confidence 0.5 < 0.6",
    ]);
  });

  it("majority sums confidence per value", () => {
    n = 0;
    const cs = [contribution({ value: 2500, confidence: 0.7 }), contribution({ value: 2600, confidence: 0.9 }), contribution({ value: 2500, confidence: 0.7 })];
    expect(reasons(field({ policy: "majority" }), cs)).toEqual([
      // The value's best candidate by the tie-break (later receivedAt) is the one named.
      "- c1: same value as the winner: counted in its sum",
      "- c2: value 2600: summed confidence 0.9 < 1.4",
      "* c3: majority: summed confidence 1.4 for 2500 (next: 0.9)",
    ]);
  });

  it("latest by observedAt; max and min by value", () => {
    n = 0;
    const cs = [
      contribution({ value: 1, observedAt: "2026-03-01T00:00:00.000Z" }),
      contribution({ value: 5, observedAt: "2026-02-01T00:00:00.000Z" }),
    ];
    expect(reasons(field({ policy: "latest" }), cs)).toEqual([
      "* c1: latest observedAt 2026-03-01T00:00:00.000Z",
      "- c2: older observedAt 2026-02-01T00:00:00.000Z",
    ]);
    expect(reasons(field({ policy: "max" }), cs)).toEqual(["- c1: lower value 1", "* c2: highest value 5"]);
    expect(reasons(field({ policy: "min" }), cs)).toEqual(["* c1: lowest value 1", "- c2: higher value 5"]);
  });

  it("equal confidence: the later receivedAt wins", () => {
    n = 0;
    const cs = [contribution({ value: 1 }), contribution({ value: 2 })];
    expect(reasons(field({ policy: "highest_confidence" }), cs)).toEqual([
      "- c1: same confidence, received earlier (2026-01-01T00:00:01.000Z)",
      "* c2: highest confidence 1; tie broken by later receivedAt",
    ]);
  });
});
