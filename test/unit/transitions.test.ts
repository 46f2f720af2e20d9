import { describe, expect, it } from "vitest";
import { assertTransition, parseTargetStatus } from "../../src/engine/transitions.js";

const MODEL = ["draft", "active", "archived"];
const CONTEXT = ["active", "completed", "archived"];
const ALLOWED = new Set(["model:draft>active", "model:active>archived", "context:active>completed", "context:completed>active", "context:completed>archived"]);

describe("lifecycle transitions", () => {
  for (const [kind, states] of [["model", MODEL], ["context", CONTEXT]] as const) {
    for (const from of states) {
      for (const to of states) {
        const ok = ALLOWED.has(`${kind}:${from}>${to}`);
        it(`${kind} ${from} → ${to} is ${ok ? "allowed" : "422"}`, () => {
          if (ok) expect(() => assertTransition(kind, from, to)).not.toThrow();
          else expect(() => assertTransition(kind, from, to)).toThrow(expect.objectContaining({ status: 422, code: "invalid_transition" }));
        });
      }
    }
  }

  it("accepts status spellings case-insensitively and rejects unknown ones with 400", () => {
    expect(parseTargetStatus("model", "ACTIVE")).toBe("active");
    expect(parseTargetStatus("context", " Completed ")).toBe("completed");
    expect(() => parseTargetStatus("model", "published")).toThrow(expect.objectContaining({ status: 400, code: "invalid_request" }));
  });
});
