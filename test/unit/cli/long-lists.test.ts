/**
 * Lists longer than the stack holds as call arguments (a spread of ~120,000 elements
 * overflows it): `-o name` over a long `--all` list, a table of as many rows, and JSON
 * Logic's min/max over a context's records. Each of these threw "Maximum call stack size
 * exceeded" when it spread the array into a call.
 */
import { describe, expect, it } from "vitest";
import { Output } from "../../../src/cli/output/output.js";
import { layoutTable } from "../../../src/cli/output/table-layout.js";
import { compileExpression } from "../../../src/portable/json-logic/index.js";
import { CapturedStream } from "../../helpers/cli.js";

const N = 300_000;

describe("lists longer than a call's arguments", () => {
  it("-o name prints every resource of a long list", async () => {
    const stdout = new CapturedStream();
    const out = new Output({ stdout, stderr: new CapturedStream() }, { format: "name", color: false, quiet: true });
    const data = Array.from({ length: N }, (_, i) => ({ contributionId: `c${i}`, contextId: "x", sourceId: "s", status: "accepted" }));
    out.json({ data, nextCursor: null, hasNextPage: false });
    await out.flushNames();
    const lines = stdout.text().split("\n").filter(Boolean);
    expect(lines).toHaveLength(N);
    expect(lines[N - 1]).toBe(`contribution/c${N - 1}`);
  });

  it("a table of that many rows is laid out", () => {
    const rows = Array.from({ length: N }, (_, i) => [{ text: String(i) }]);
    const lines = layoutTable([{ text: "N" }], rows);
    expect(lines).toHaveLength(N + 1);
    expect(lines[0].trim()).toBe("N");
    expect(lines[N].trim()).toBe(String(N - 1));
  });

  it("min and max over that many arguments, as Math.min/Math.max give them", () => {
    const xs = Array.from({ length: N }, (_, i) => (i * 7919) % N);
    expect(compileExpression({ max: xs }).evaluate({}).result).toBe(N - 1);
    expect(compileExpression({ min: xs }).evaluate({}).result).toBe(0);
    expect(compileExpression({ max: [{ var: "xs" }] }).evaluate({ xs }).result).toBe(N - 1);
    for (const values of [[], [1, "2", null], [0, -0], [-0, 0], [1, Number.NaN], ["x", 3], [[4], true]]) {
      const args = values.map((v) => ({ var: ["v", v] }));
      expect(compileExpression({ min: args }).evaluate({}).result, JSON.stringify(values)).toBe(Math.min(...(values as number[])));
      expect(compileExpression({ max: args }).evaluate({}).result, JSON.stringify(values)).toBe(Math.max(...(values as number[])));
    }
  });
});
