import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { contribution, setupModels, writeLines } from "./support.js";

let box: Sandbox;
beforeAll(async () => {
  box = sandbox();
  await setupModels(box);
});
afterAll(() => box.cleanup());

describe("after the import's bar, the wait for resolution", () => {
  it("shows progress on a terminal from its start to the full count, then the summary line", async () => {
    const lines = Array.from({ length: 12 }, (_, i) => contribution(`wait-${i % 6}`, "Loan", `form-${i}`, { amount: 100_000 + i }));
    const file = writeLines(box, "wait.ndjson", lines);
    const r = await ddsctl(box, ["import", "contributions", file, "--create-contexts"], { stderrTTY: true });
    expect(r.exitCode, r.stderr).toBe(0);
    if (box.mode === "local") {
      // In-process, each write group's contexts are resolved as it commits: the wait finds them resolved.
      expect(r.stderr).not.toContain("resolving 6/6");
      expect(r.stderr).toContain("resolved 6 context(s)");
      return;
    }
    const start = r.stderr.indexOf("resolving 0/6 context(s)");
    const full = r.stderr.lastIndexOf("resolving 6/6 context(s)");
    const summary = r.stderr.indexOf("resolved 6 context(s)");
    expect(start, r.stderr).toBeGreaterThanOrEqual(0);
    expect(full).toBeGreaterThan(start);
    expect(summary).toBeGreaterThan(full);
  });

  it("draws nothing without a terminal", async () => {
    const file = writeLines(box, "quiet.ndjson", [contribution("wait-quiet", "Loan", "form", { amount: 200_000 })]);
    const r = await ddsctl(box, ["import", "contributions", file, "--create-contexts"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("resolving");
  });
});
