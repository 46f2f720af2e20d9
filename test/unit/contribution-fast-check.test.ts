import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContributionCreate, isWellFormedContribution } from "../../src/contract/schemas/index.js";

const uuid = "0192f0c1-7a2b-7c3d-8e4f-123456789abc";
const good = { contextId: uuid, modelId: uuid.toUpperCase(), sourceId: "s", sourceType: "document", data: { a: 1, b: [1, { c: null }] } };

/** Mostly a right value (so many bodies take the fast path), else a near miss or anything. */
const mostly = <T,>(right: fc.Arbitrary<T>, ...wrong: fc.Arbitrary<unknown>[]) =>
  fc.oneof({ arbitrary: right as fc.Arbitrary<unknown>, weight: 12 }, ...wrong.map((arbitrary) => ({ arbitrary, weight: 1 })), { arbitrary: fc.anything(), weight: 1 });

/** Values a field may take. */
const near = {
  contextId: mostly(fc.oneof(fc.constant(uuid), fc.uuid()), fc.constant(uuid.slice(1)), fc.constant(`${uuid} `)),
  modelId: mostly(fc.oneof(fc.constant(uuid.toUpperCase()), fc.uuid()), fc.string()),
  sourceId: mostly(fc.string({ minLength: 1, maxLength: 200 }), fc.constant(""), fc.constant("x".repeat(201))),
  sourceType: mostly(fc.constantFrom("document", "integration", "user", "manual", "system"), fc.constantFrom("fax", "Document")),
  data: mostly(fc.dictionary(fc.string(), fc.jsonValue()), fc.constant({ __proto__: null, a: 1 }), fc.constant(JSON.parse('{"__proto__": 1}')), fc.constant([])),
  fieldConfidences: mostly(
    fc.oneof(fc.constant(undefined), fc.dictionary(fc.string(), fc.oneof(fc.double(), fc.integer()))),
    fc.constant(JSON.parse('{"__proto__": 0.5}')),
    fc.constant({ a: Number.POSITIVE_INFINITY }),
  ),
  recordId: mostly(fc.oneof(fc.constant(undefined), fc.uuid()), fc.string()),
  observedAt: mostly(fc.oneof(fc.constant(undefined), fc.string())),
};

const bodies = fc.oneof(
  fc.record(near, { requiredKeys: [] }),
  fc.record(near, { requiredKeys: ["contextId", "modelId", "sourceId", "sourceType", "data"] }),
  fc.tuple(fc.record(near, { requiredKeys: [] }), fc.dictionary(fc.string(), fc.anything(), { maxKeys: 2 })).map(([a, b]) => ({ ...b, ...a })),
  fc.anything(),
);

describe("isWellFormedContribution (ingest's hand-checked fast path)", () => {
  it("accepts the common well-formed item, with and without the optional fields", () => {
    expect(isWellFormedContribution(good)).toBe(true);
    expect(isWellFormedContribution({ ...good, fieldConfidences: { a: 0.5 }, recordId: uuid, observedAt: "2026-01-01T00:00:00Z" })).toBe(true);
    expect(isWellFormedContribution(JSON.parse(JSON.stringify(good)))).toBe(true);
  });

  it("declines the near misses (the schema then explains them)", () => {
    for (const bad of [null, [], "x", { ...good, extra: 1 }, { ...good, data: JSON.parse('{"__proto__": 1}') }, { ...good, sourceId: "" }, { ...good, sourceType: "fax" }, { ...good, data: [] }, { ...good, fieldConfidences: { a: "1" } }]) {
      expect(isWellFormedContribution(bad)).toBe(false);
    }
  });

  it("never accepts what ContributionCreate rejects, and accepts exactly what the schema would return", () => {
    let accepted = 0;
    fc.assert(
      fc.property(bodies, (body) => {
        if (!isWellFormedContribution(body)) return;
        accepted++;
        const parsed = ContributionCreate.safeParse(body);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(body);
        expect(Object.keys(parsed.data!)).toEqual(Object.keys(body));
        expect(Object.keys(parsed.data!.data)).toEqual(Object.keys(body.data));
        if (body.fieldConfidences) expect(Object.keys(parsed.data!.fieldConfidences!)).toEqual(Object.keys(body.fieldConfidences));
      }),
      { numRuns: 20_000 },
    );
    // The property means something only if many generated bodies took the fast path.
    expect(accepted).toBeGreaterThan(500);
  });
});
