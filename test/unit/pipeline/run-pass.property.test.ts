import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PassContribution, PassInput, LinkRemoval } from "../../../src/engine/pipeline/types.js";
import { runPass } from "../../../src/engine/pipeline/stages/index.js";
import { resolveAlone } from "../../../src/engine/pipeline/stages/resolve-alone.js";
import { decodeLineage } from "../../../src/engine/store/lineage-codec.js";
import { REC, at, contributeTo, mortgageInput, uuid } from "./fixtures.js";

const SOURCE_TYPES = ["document", "integration", "user", "manual", "system"] as const;

/**
 * A mortgage context with random extra evidence: competing values (ties included, since
 * confidences and times come from tiny pools) on every policy's field, and removals.
 */
const inputArbitrary: fc.Arbitrary<PassInput> = fc
  .record({
    extra: fc.array(
      fc.record({
        target: fc.constantFrom("loan", "a1", "a2", "e1", "e3"),
        value: fc.integer({ min: 0, max: 3 }),
        confidence: fc.constantFrom(0.2, 0.5, 1),
        minute: fc.integer({ min: 0, max: 3 }),
        observed: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
        sourceType: fc.constantFrom(...SOURCE_TYPES),
        nullValue: fc.boolean(),
      }),
      { maxLength: 25 },
    ),
    removeA1: fc.boolean(),
    staleRemoval: fc.boolean(),
  })
  .map(({ extra, removeA1, staleRemoval }) => {
    const input = mortgageInput();
    const [loan, applicant, employment] = input.models;
    extra.forEach((e, i) => {
      const v = e.nullValue ? null : e.value;
      const over = {
        id: uuid(91, i + 1),
        sourceType: e.sourceType,
        receivedAt: at(e.minute),
        observedAt: e.observed === null ? null : at(e.observed),
      };
      let c: PassContribution;
      if (e.target === "loan") c = contributeTo(loan, REC.loan, { amount: 1000 * (v ?? 0), debt: v, closingDate: `2026-0${e.value + 1}-01` }, over);
      else if (e.target === "a1" || e.target === "a2") c = contributeTo(applicant, REC[e.target], { creditScore: v === null ? null : 600 + v }, over);
      else c = contributeTo(employment, REC[e.target], { employer: v === null ? null : `Co${v}`, annualSalary: v === null ? null : 12000 * (v + 1) }, over);
      for (const key of Object.keys(c.data)) c.confidences[key] = e.confidence;
      input.contributions.push(c);
    });
    const removals: LinkRemoval[] = [];
    if (removeA1) removals.push({ sourceRecordId: REC.loan, name: "applicants", targetRecordId: REC.a1, sourceIdentity: null, targetIdentity: '["A1"]' });
    if (staleRemoval) removals.push({ sourceRecordId: REC.a2, name: "employments", targetRecordId: REC.e3, sourceIdentity: '["OLD"]', targetIdentity: '["E3"]' });
    input.removals = removals;
    input.rules.push({ id: uuid(70, 99), name: "fails", version: 1, expression: { var: { cat: ["Loan.", "__proto__"] } } });
    return input;
  });

/** A permutation of `items` chosen by `seed` (a list of sort keys). */
function permute<T>(items: readonly T[], keys: readonly number[]): T[] {
  return items.map((item, i) => ({ item, k: keys[i % Math.max(keys.length, 1)] ?? 0, i })).sort((a, b) => a.k - b.k || b.i - a.i).map((x) => x.item);
}

/** A pass's outcome as text, without the memory it keeps for the next pass (whose insertion order follows the input's). */
function outcome(output: ReturnType<typeof runPass>): string {
  const { memory: _memory, ...rest } = output;
  return JSON.stringify(rest);
}

describe("runPass properties", () => {
  it("is deterministic under shuffling of every input array", () => {
    const keys = fc.array(fc.integer(), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(inputArbitrary, keys, keys, keys, keys, keys, (input, k1, k2, k3, k4, k5) => {
        const shuffled: PassInput = {
          ...input,
          records: permute(input.records, k1),
          contributions: permute(input.contributions, k2),
          rules: permute(input.rules, k3),
          removals: permute(input.removals, k4),
          models: permute(input.models, k5),
        };
        expect(outcome(runPass(shuffled))).toBe(outcome(runPass(input)));
      }),
      { numRuns: 200 },
    );
  });

  it("is idempotent and does not change its input", () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const before = JSON.stringify(input);
        const first = JSON.stringify(runPass(input));
        expect(JSON.stringify(runPass(input))).toBe(first);
        expect(JSON.stringify(input)).toBe(before);
      }),
      { numRuns: 100 },
    );
  });

  it("keeps the rule that errors at outcome false with trace.error", () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const failing = runPass(input).evaluations.find((e) => e.ruleId === uuid(70, 99))!;
        expect(failing.outcome).toBe(false);
        expect(failing.trace.error).toBeDefined();
      }),
      { numRuns: 20 },
    );
  });
});

describe("a record resolved alone, as an ingest writes it", () => {
  it("has the data, sha256, issues and lineage a pass gives it, byte for byte", () => {
    fc.assert(
      fc.property(inputArbitrary, fc.boolean(), (input, required) => {
        // The models without their computed fields resolve alone; a required field that has no
        // value gives an issue; validation rules apply as in a pass.
        const models = input.models.map((m) => ({
          ...m,
          computedOrder: [],
          fields: m.fields.filter((f) => !f.computed).map((f, i) => (required && i === m.fields.length - 2 ? { ...f, required: true } : f)),
        }));
        const alone = { ...input, models, rules: [] };
        const pass = runPass(alone);
        const columns = resolveAlone(models, input.records, input.contributions);
        expect(columns.size).toBe(pass.records.length);
        for (const r of pass.records) {
          const state = pass.states.get(r.id)!;
          expect(columns.get(r.id)).toEqual({ data: JSON.stringify(r.data), sha256: r.sha256, issues: JSON.stringify(r.issues), lineage: state.lineage });
          expect(decodeLineage(state.lineage)).toEqual(r.lineage);
        }
      }),
      { numRuns: 300 },
    );
  });
});
