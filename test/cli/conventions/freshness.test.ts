import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { contribution, setupModels, writeLines } from "../import/support.js";
import { ok, run, runBody, uniq } from "../support.js";

// Every write resolves what it changed before returning; a definition change is a write.
let box: Sandbox;
let ctx: string;
let rule: string;

beforeAll(async () => {
  box = sandbox();
  await setupModels(box);
  ctx = uniq("fresh-case");
  rule = uniq("loan-floor");
  const r = await runBody(box, ["rules", "create"], { name: rule, category: "eligibility", severity: "low", expression: { ">=": [{ var: "Loan.amount" }, 1000] } });
  expect(r.exitCode, r.stderr).toBe(0);
  const imported = await ddsctl(box, ["import", "contributions", writeLines(box, "fresh.ndjson", [contribution(ctx, "Loan", "doc-1", { amount: 250000 })]), "--create-contexts"]);
  expect(imported.exitCode, imported.stderr).toBe(0);
  // The drain's message names the passes only when this process made them (remotely the server's worker did).
  expect(imported.stderr).toMatch(/^resolved 1 context\(s\)( in [1-9]\d* pass\(es\))?$/m);
  expect(imported.stderr).not.toMatch(/in 0 pass/);
});
afterAll(() => box.cleanup());

describe("fields add on an active model", () => {
  it("leaves the model's contexts resolved, as other writes do", async () => {
    expect(ok(await run(box, ["contexts", "get", ctx, "--json"])).freshness).toBe("resolved");
    const r = await run(box, ["fields", "add", "Loan", "--name", uniq("note"), "--type", "string"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ok(await run(box, ["contexts", "get", ctx, "--json"])).freshness).toBe("resolved");
  });
});
