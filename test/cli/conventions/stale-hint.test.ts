import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { loanCaseWithRule } from "../import/support.js";
import { ok, run, uniq } from "../support.js";

// Local only: a remote server's worker resolves stale contexts in the background, so
// staleness there lasts an unknown moment.
let box: Sandbox;
let ctx: string;
let rule: string;

beforeAll(async () => {
  box = sandbox();
  const made = await loanCaseWithRule(box, "stale");
  ({ ctx, rule } = made);
  expect(made.imported.exitCode, made.imported.stderr).toBe(0);
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
