import { describe, expect, it } from "vitest";
import { sameEvidence, type HeadEvidence } from "../../src/engine/evidence/head-evidence.js";

const head: HeadEvidence = { sourceType: "document", data: '{"f1":"a b","f2":[1,{"x":2}]}', confidences: '{"f1":0.5}', observedAt: null };

describe("unchanged evidence (sameEvidence)", () => {
  it("is the same values whatever the key order or the spacing PostgreSQL's jsonb writes", () => {
    expect(sameEvidence(head, { ...head })).toBe(true);
    expect(sameEvidence(head, { ...head, data: '{"f2":[1,{"x":2}],"f1":"a b"}' })).toBe(true);
    expect(sameEvidence({ ...head, data: '{"f1": "a b", "f2": [1, {"x": 2}]}', confidences: '{"f1": 0.5}' }, head)).toBe(true);
  });

  it("differs on any value, field, confidence, source type or observedAt", () => {
    expect(sameEvidence(head, { ...head, data: '{"f1":"a b","f2":[1,{"x":3}]}' })).toBe(false);
    expect(sameEvidence(head, { ...head, data: '{"f1":"a b"}' })).toBe(false);
    expect(sameEvidence(head, { ...head, data: '{"f1":"a b","f2":[{"x":2},1]}' })).toBe(false);
    expect(sameEvidence(head, { ...head, data: '{"f1":"a b","f3":[1,{"x":2}]}' })).toBe(false);
    expect(sameEvidence(head, { ...head, confidences: null })).toBe(false);
    expect(sameEvidence(head, { ...head, sourceType: "manual" })).toBe(false);
    expect(sameEvidence(head, { ...head, observedAt: "2026-01-01T00:00:00Z" })).toBe(false);
    expect(sameEvidence(head, { ...head, data: '{"f1":"a b","f2":[1,{"x":"2"}]}' })).toBe(false);
  });
});
