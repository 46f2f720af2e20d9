import { describe, expect, it } from "vitest";
import { decodeConfidences, encodeConfidences } from "../../src/engine/store/confidence-codec.js";

describe("stored field confidences", () => {
  it("keep only those other than 1 and read back one per field of the data, in the data's order", () => {
    const data = { f1: "x", f2: 3, f3: null };
    const confidences = { f1: 1, f2: 0.4, f3: 0 };
    const text = encodeConfidences(confidences);
    expect(JSON.parse(text)).toEqual({ f2: 0.4, f3: 0 });
    const decoded = decodeConfidences(text, data);
    expect(decoded).toEqual(confidences);
    expect(Object.keys(decoded)).toEqual(["f1", "f2", "f3"]);
  });

  it("reads rows stored with every confidence as they were written", () => {
    expect(decodeConfidences('{"f1":1,"f2":0.5}', { f1: 1, f2: 2 })).toEqual({ f1: 1, f2: 0.5 });
    expect(decodeConfidences("{}", {})).toEqual({});
  });
});
