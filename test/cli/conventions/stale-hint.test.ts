import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { contribution, setupModels, writeLines } from "../import/support.js";
import { ok, run, runBody, uniq } from "../support.js";

// Local only: a remote server's worker resolves stale contexts in the background, so
// staleness there lasts an unknown moment.
let box: Sandbox;
let ctx: string;
let rule: string;

beforeAll(async () => {
  box = sandbox();
  await setupModels(box);
  ctx = uniq("stale-case");
  rule = uniq("loan-floor");
  expect((await runBody(box, ["rules", "create"], { name: rule, category: "eligibility", severity: "low", expression: { ">=": [{ var: "Loan.amount" }, 1000] } })).exitCode).toBe(0);
  expect((await ddsctl(box, ["import", "contributions", writeLines(box, "stale.ndjson", [contribution(ctx, "Loan", "doc-1", { amount: 250000 })]), "--create-contexts"])).exitCode).toBe(0);
});
afterAll(() => box.cleanup());

describe("a stale evaluation", () => {
  it("with --no-wait the contexts stay stale, and trace says so and how to resolve them", async () => {
    expect((await run(box, ["fields", "add", "Loan", "--name", uniq("memo"), "--type", "string", "--no-wait"])).exitCode).toBe(0);
    expect(ok(await run(box, ["contexts", "get", ctx, "--json"])).freshness).toBe("stale");
    const t = await run(box, ["trace", ctx, rule]);
    expect(t.exitCode, t.stderr).toBe(0);
    expect(t.stderr).toMatch(/this evaluation is stale: .*ddsctl pipeline run/);
  });
});
