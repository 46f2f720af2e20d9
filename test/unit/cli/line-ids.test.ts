import { describe, expect, it } from "vitest";
import { withIds } from "../../../src/cli/commands/import/line-parse.js";
import { LineClassifier } from "../../../src/cli/commands/import/line-items.js";
import { KINDS } from "../../../src/cli/commands/import/import-kinds.js";

describe("withIds", () => {
  it("puts each id in the place of the name it resolves, and leaves out kind", () => {
    const line = JSON.parse('{"kind":"Contribution","contextRef":"case-1","modelName":"Loan","sourceId":"s","data":{"amount":1}}');
    const item = withIds(line, "model-id", "context-id");
    expect(Object.keys(item)).toEqual(["contextId", "modelId", "sourceId", "data"]);
    expect(item).toEqual({ contextId: "context-id", modelId: "model-id", sourceId: "s", data: { amount: 1 } });
    // A copy: the parsed line is as it was.
    expect(line.modelName).toBe("Loan");
  });

  it("keeps a name it was given no id for", () => {
    const item = withIds(JSON.parse('{"contextRef":"case-1","modelName":"Loan"}'), "m", undefined);
    expect(item).toEqual({ contextRef: "case-1", modelId: "m" });
  });

  it("keeps a __proto__ key as an own property (for the service to refuse), never as the prototype", () => {
    const line = JSON.parse('{"contextRef":"case-1","__proto__":{"polluted":true},"data":{}}');
    const item = withIds(line, undefined, "c");
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
    expect(Object.hasOwn(item, "__proto__")).toBe(true);
    expect((item as { polluted?: unknown }).polluted).toBeUndefined();
    expect(item.contextId).toBe("c");
    expect(Object.hasOwn(item, "contextRef")).toBe(false);
  });
});

describe("LineClassifier without references", () => {
  it("sends a line of its kind without the kind key, and skips other kinds", () => {
    const classifier = new LineClassifier(KINDS.contributions, undefined, undefined);
    expect(classifier.classify('{"kind":"Contribution","contextId":"c","data":{}}')).toEqual({ item: { contextId: "c", data: {} } });
    expect(classifier.classify('{"kind":"Context","name":"x"}')).toEqual({ skip: true });
    expect(classifier.classify("   ")).toEqual({ skip: true });
    expect(classifier.classify("[1]")).toMatchObject({ problem: { detail: "each line must be a JSON object, got an array" } });
  });
});
