import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { loanCaseWithRule } from "../import/support.js";
import { ok, run, setStatus, uniq } from "../support.js";

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

  it("of a completed context names the commands that reopen and resolve it; following them brings it up to date", async () => {
    await setStatus(box, "contexts", ctx, "completed");
    const t = await run(box, ["trace", ctx, rule]);
    const m = /the pipeline only processes active contexts: (ddsctl .*)$/m.exec(t.stderr);
    expect(m, t.stderr).not.toBeNull();
    expect(m![1]).toBe(`ddsctl contexts status ${ctx} active && ddsctl pipeline run ${ctx}`);
    for (const command of m![1].split(" && ")) expect((await run(box, command.split(" ").slice(1))).exitCode).toBe(0);
    expect(ok(await run(box, ["trace", ctx, rule, "--json"])).evaluation.freshness).toBe("resolved");
  });

  it("of an archived context: wait and trace say it stays stale, and suggest no reopening (the service refuses it)", async () => {
    expect((await run(box, ["fields", "add", "Loan", "--name", uniq("memo"), "--type", "string", "--no-wait"])).exitCode).toBe(0);
    await setStatus(box, "contexts", ctx, "completed");
    await setStatus(box, "contexts", ctx, "archived");
    const w = await run(box, ["wait", ctx]);
    expect(w.exitCode).toBe(1);
    expect(w.stderr).toMatch(new RegExp(`context ${ctx} is archived and stale: .*archived contexts are permanent, so it stays stale`));
    expect(w.stderr).not.toMatch(/reopen/);
    const t = await run(box, ["trace", ctx, rule]);
    expect(t.stderr).toMatch(/this evaluation is stale: .*archived contexts are permanent/);
    expect(t.stderr).not.toMatch(/pipeline run/);
  });
});

