import { describe, expect, it } from "vitest";
import { resolveField, type Candidate } from "../../../src/engine/pipeline/stages/index.js";
import { at, compiledField, uuid } from "./fixtures.js";

/** A candidate; `n` names it (contributionId uuid(80, n), sourceId s<n>). */
function cand(n: number, value: unknown, over: Partial<Candidate> = {}): Candidate {
  return {
    contributionId: uuid(80, n),
    sourceId: `s${n}`,
    sourceType: "document",
    value,
    confidence: 1,
    receivedAt: at(0),
    observedAt: null,
    ...over,
  };
}

const winner = (field: Parameters<typeof resolveField>[0], candidates: Candidate[]) => resolveField(field, candidates)?.lineage.contributionId;

describe("resolveField", () => {
  it("returns undefined without candidates", () => {
    expect(resolveField(compiledField(), [])).toBeUndefined();
  });

  describe("highest_confidence and the shared tie-break", () => {
    const field = compiledField();

    it("prefers higher confidence and reports lineage", () => {
      const out = resolveField(field, [cand(1, 10, { confidence: 0.5 }), cand(2, 20, { confidence: 0.9, sourceType: "user" })]);
      expect(out).toEqual({
        value: 20,
        lineage: { contributionId: uuid(80, 2), sourceId: "s2", sourceType: "user", confidence: 0.9, policy: "highest_confidence", candidates: 2 },
      });
    });

    it("breaks a confidence tie by later receivedAt", () => {
      expect(winner(field, [cand(2, 1, { receivedAt: at(1) }), cand(1, 2, { receivedAt: at(5) })])).toBe(uuid(80, 1));
    });

    it("breaks a full tie by the larger contributionId", () => {
      expect(winner(field, [cand(7, 1), cand(9, 2), cand(8, 3)])).toBe(uuid(80, 9));
    });

    it("compares receivedAt as instants", () => {
      const a = cand(1, 1, { receivedAt: "2026-01-01T01:00:00.000+01:00" });
      const b = cand(2, 2, { receivedAt: "2026-01-01T00:30:00.000Z" });
      expect(winner(field, [a, b])).toBe(uuid(80, 2));
    });
  });

  describe("minConfidence", () => {
    const field = compiledField({ resolution: { minConfidence: 0.5 } });

    it("ignores candidates below it and keeps those equal to it", () => {
      const out = resolveField(field, [cand(1, "low", { confidence: 0.49 }), cand(2, "equal", { confidence: 0.5 })]);
      expect(out?.value).toBe("equal");
      expect(out?.lineage.candidates).toBe(1);
    });

    it("gives no value when every candidate is below it", () => {
      expect(resolveField(field, [cand(1, 1, { confidence: 0.1 })])).toBeUndefined();
    });
  });

  it("lets a null candidate win (the field is then null)", () => {
    const out = resolveField(compiledField(), [cand(1, 5, { confidence: 0.5 }), cand(2, null, { confidence: 0.9 })]);
    expect(out?.value).toBeNull();
    expect(out?.lineage.contributionId).toBe(uuid(80, 2));
  });

  describe("latest and earliest", () => {
    const latest = compiledField({ resolution: { policy: "latest" } });
    const earliest = compiledField({ resolution: { policy: "earliest" } });
    const cs = [
      cand(1, "old", { receivedAt: at(10), observedAt: at(1) }),
      cand(2, "mid", { receivedAt: at(5) }),
      cand(3, "new", { receivedAt: at(2), observedAt: at(8), confidence: 0.1 }),
    ];

    it("use observedAt when present, else receivedAt", () => {
      expect(resolveField(latest, cs)?.value).toBe("new");
      expect(resolveField(earliest, cs)?.value).toBe("old");
    });

    it("break equal times by confidence, then receivedAt, then id", () => {
      const tied = [cand(1, "a", { observedAt: at(3), confidence: 0.5 }), cand(2, "b", { receivedAt: at(3), confidence: 0.8 })];
      expect(resolveField(latest, tied)?.value).toBe("b");
      expect(resolveField(earliest, tied)?.value).toBe("b");
      const full = [cand(1, "a", { receivedAt: at(3) }), cand(2, "b", { receivedAt: at(3) })];
      expect(resolveField(earliest, full)?.value).toBe("b");
      const byReceived = [cand(2, "a", { observedAt: at(1), receivedAt: at(9) }), cand(1, "b", { observedAt: at(1), receivedAt: at(4) })];
      expect(resolveField(latest, byReceived)?.value).toBe("a");
    });
  });

  describe("source_priority", () => {
    const field = compiledField({ resolution: { policy: "source_priority", sourcePriority: ["document", "integration"] } });

    it("follows the list, whatever the confidence", () => {
      const cs = [cand(1, "int", { sourceType: "integration", confidence: 1 }), cand(2, "doc", { sourceType: "document", confidence: 0.2 })];
      expect(resolveField(field, cs)?.value).toBe("doc");
      expect(resolveField(field, cs)?.lineage.policy).toBe("source_priority");
    });

    it("ranks unlisted sources after all listed ones", () => {
      const cs = [cand(1, "user", { sourceType: "user", confidence: 1 }), cand(2, "int", { sourceType: "integration", confidence: 0.1 })];
      expect(resolveField(field, cs)?.value).toBe("int");
    });

    it("breaks ties within a source type (listed or not) by confidence, then the tie-break", () => {
      expect(resolveField(field, [cand(1, "a", { confidence: 0.4 }), cand(2, "b", { confidence: 0.6 })])?.value).toBe("b");
      const unlisted = [cand(1, "u", { sourceType: "user", confidence: 0.3 }), cand(2, "m", { sourceType: "manual", confidence: 0.7 })];
      expect(resolveField(field, unlisted)?.value).toBe("m");
      expect(resolveField(field, [cand(3, "x"), cand(4, "y")])?.value).toBe("y");
    });
  });

  describe("majority", () => {
    const field = compiledField({ type: "json", resolution: { policy: "majority" } });

    it("picks the value with the largest summed confidence", () => {
      const cs = [cand(1, "A", { confidence: 0.9 }), cand(2, "B", { confidence: 0.5 }), cand(3, "B", { confidence: 0.5 })];
      const out = resolveField(field, cs);
      expect(out?.value).toBe("B");
      expect(out?.lineage).toMatchObject({ policy: "majority", candidates: 3, confidence: 0.5 });
    });

    it("names the best candidate of the winning value by the tie-break", () => {
      const cs = [cand(1, "B", { confidence: 0.5, receivedAt: at(9) }), cand(2, "B", { confidence: 0.5, receivedAt: at(1) }), cand(3, "A", { confidence: 0.9 })];
      expect(winner(field, cs)).toBe(uuid(80, 1));
    });

    it("compares values by canonical JSON", () => {
      const cs = [cand(1, { a: 1, b: 2 }, { confidence: 0.4 }), cand(2, { b: 2, a: 1 }, { confidence: 0.4 }), cand(3, { a: 2 }, { confidence: 0.7 })];
      expect(resolveField(field, cs)?.value).toEqual({ a: 1, b: 2 });
    });

    it("breaks equal sums by the values' best candidates", () => {
      const cs = [cand(1, "A", { confidence: 0.3 }), cand(2, "A", { confidence: 0.3 }), cand(3, "B", { confidence: 0.6 })];
      expect(resolveField(field, cs)?.value).toBe("B");
      const floaty = [cand(1, "A", { confidence: 0.1 }), cand(2, "A", { confidence: 0.2 }), cand(9, "B", { confidence: 0.3 })];
      expect(resolveField(field, floaty)?.value).toBe("B");
      expect(resolveField(field, [cand(5, "A"), cand(6, "B")])?.value).toBe("B");
    });

    it("counts null as a value", () => {
      expect(resolveField(field, [cand(1, null), cand(2, null), cand(3, "x", { confidence: 1 })])?.value).toBeNull();
    });
  });

  describe("min and max", () => {
    it("order numbers numerically", () => {
      const cs = [cand(1, 10), cand(2, 9), cand(3, 100)];
      expect(resolveField(compiledField({ resolution: { policy: "min" } }), cs)?.value).toBe(9);
      expect(resolveField(compiledField({ resolution: { policy: "max" } }), cs)?.value).toBe(100);
    });

    it("order dates and datetimes chronologically", () => {
      const dates = [cand(1, "2026-02-01"), cand(2, "2025-12-31"), cand(3, "2026-01-15")];
      expect(resolveField(compiledField({ type: "date", resolution: { policy: "min" } }), dates)?.value).toBe("2025-12-31");
      expect(resolveField(compiledField({ type: "date", resolution: { policy: "max" } }), dates)?.value).toBe("2026-02-01");
      // Offsets matter: 10:00+05:00 is 05:00Z, earlier than 06:00Z.
      const times = [cand(1, "2026-01-01T06:00:00Z"), cand(2, "2026-01-01T10:00:00+05:00")];
      expect(resolveField(compiledField({ type: "datetime", resolution: { policy: "min" } }), times)?.value).toBe("2026-01-01T10:00:00+05:00");
      expect(resolveField(compiledField({ type: "datetime", resolution: { policy: "max" } }), times)?.value).toBe("2026-01-01T06:00:00Z");
    });

    it("break equal values by the tie-break", () => {
      const field = compiledField({ resolution: { policy: "min" } });
      expect(winner(field, [cand(1, 5, { confidence: 0.9 }), cand(2, 5, { confidence: 0.4 })])).toBe(uuid(80, 1));
      expect(winner(field, [cand(1, 5, { receivedAt: at(2) }), cand(2, 5, { receivedAt: at(1) })])).toBe(uuid(80, 1));
      expect(winner(field, [cand(1, 5), cand(2, 5)])).toBe(uuid(80, 2));
    });

    it("rank null and unorderable values after every orderable one", () => {
      const field = compiledField({ resolution: { policy: "max" } });
      expect(resolveField(field, [cand(1, null, { confidence: 1 }), cand(2, 3, { confidence: 0.1 })])?.value).toBe(3);
      expect(resolveField(compiledField({ resolution: { policy: "min" } }), [cand(1, "x"), cand(2, 7)])?.value).toBe(7);
      expect(resolveField(field, [cand(1, null)])?.value).toBeNull();
    });
  });

  it("gives the same winner for every order of the candidates", () => {
    const policies = ["highest_confidence", "latest", "earliest", "source_priority", "majority", "min", "max"] as const;
    const cs = [
      cand(1, 3, { confidence: 0.5, receivedAt: at(2) }),
      cand(2, 3, { confidence: 0.5, receivedAt: at(2), sourceType: "user" }),
      cand(3, 1, { confidence: 0.5, receivedAt: at(1), sourceType: "integration" }),
      cand(4, 1, { confidence: 0.5, receivedAt: at(2) }),
    ];
    for (const policy of policies) {
      const field = compiledField({ resolution: { policy, sourcePriority: ["integration"] } });
      const expected = winner(field, cs);
      for (const order of [[3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]]) {
        expect(winner(field, order.map((i) => cs[i]))).toBe(expected);
      }
    }
  });
});
