import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { loanCaseWithRule } from "../import/support.js";
import { ok, run, uniq } from "../support.js";

// Every write resolves what it changed before returning; a definition change is a write.
let box: Sandbox;
let ctx: string;

beforeAll(async () => {
  box = sandbox();
  const made = await loanCaseWithRule(box, "fresh");
  ctx = made.ctx;
  expect(made.imported.exitCode, made.imported.stderr).toBe(0);
  // The drain's message names the passes only when this process made them (remotely the server's worker did).
  expect(made.imported.stderr).toMatch(/^resolved 1 context\(s\)( in [1-9]\d* pass\(es\))?$/m);
  expect(made.imported.stderr).not.toMatch(/in 0 pass/);
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
