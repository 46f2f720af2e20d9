import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "../../src/engine/auth/index.js";
import { ddsctl, sandbox, type Sandbox } from "../helpers/cli.js";
import { THROTTLED_LINES, THROTTLED_RATE, throttledImport } from "../helpers/throttled-import.js";
import { startServer, type Harness } from "./harness.js";

// The CLI's side of rate limits: serve's flags and variables, the commands that set a
// token's or a workspace's own limit, and a remote import that a low limit slows down.
let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box?.cleanup());

describe("limits as the CLI takes them", () => {
  it("a malformed limit flag or variable is a usage error (exit 2) naming it, before serve opens anything", async () => {
    const flag = await ddsctl(box, ["serve", "--port", "0", "--token-rate", "5/x"]);
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain('--token-rate "5/x"');
    const variable = await ddsctl(box, ["serve", "--port", "0"], { env: { DDS_WORKSPACE_RATE: "lots" } });
    expect(variable.exitCode).toBe(2);
    expect(variable.stderr).toContain('DDS_WORKSPACE_RATE "lots"');
    const token = await ddsctl(box, ["tokens", "create", "--scope", "read", "--rate", "fast"]);
    expect(token.exitCode).toBe(2);
    expect(token.stderr).toContain('--rate "fast"');
  });

  it("tokens create --rate, tokens rate and workspaces rate keep a token's and a workspace's own limit on the database", async () => {
    const created = (await ddsctl(box, ["tokens", "create", "--workspace", "acme", "--scope", "write", "--rate", "6000/60s", "--json"])).json();
    expect(created.rateLimit).toBe("6000/min");
    const listed = (await ddsctl(box, ["tokens", "list", "--json"])).json().data.find((t: { tokenId: string }) => t.tokenId === created.tokenId);
    expect(listed.rateLimit).toBe("6000/min");
    expect((await ddsctl(box, ["tokens", "rate", created.tokenId, "off", "--json"])).json().rateLimit).toBe("off");
    expect((await ddsctl(box, ["tokens", "rate", created.tokenId, "default", "--json"])).json().rateLimit).toBeNull();
    const bad = await ddsctl(box, ["tokens", "rate", created.tokenId, "10/0s"]);
    expect(bad.exitCode).toBe(2);
    expect((await ddsctl(box, ["workspaces", "rate", "--workspace", "acme", "--json"])).json()).toEqual({ workspace: "acme", rateLimit: null });
    expect((await ddsctl(box, ["workspaces", "rate", "1200000/min", "--workspace", "acme", "--json"])).json()).toEqual({ workspace: "acme", rateLimit: "1200000/min" });
    const shown = await ddsctl(box, ["workspaces", "rate", "--workspace", "acme"]);
    expect(shown.stdout).toContain("1200000/min");
    expect((await ddsctl(box, ["workspaces", "rate", "--workspace", "nowhere"])).exitCode).toBe(4);
  });
});

describe("a remote import under a low limit", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startServer({});
  });
  afterAll(async () => h?.close());

  it("completes with every line stored once and none rejected, its progress saying it is throttled", async () => {
    const admin = await issueToken(h.store, { workspace: "import", scopes: ["admin"], rate: "off" });
    const slow = await issueToken(h.store, { workspace: "import", scopes: ["write"], rate: THROTTLED_RATE });
    const { run, stored } = await throttledImport(h.origin, slow.token, admin.token, THROTTLED_LINES);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ lines: THROTTLED_LINES, created: THROTTLED_LINES, failed: 0, complete: true });
    expect(stored).toBe(THROTTLED_LINES);
    expect(run.stderr).toMatch(/throttled: the server's rate limit asks POST \/v1\/contributions\/bulk to wait/);
    expect(run.stderr).toMatch(/throttled: the server's rate limit held \d+ request\(s\) back/);
  }, 120_000);

  it("a bulk that costs more than the token's limit ever allows stops the import at once, saying so, the bulk never retried", async () => {
    const admin = await issueToken(h.store, { workspace: "never", scopes: ["admin"], rate: "off" });
    // Its contexts (10 each) pass; a bulk of 100 lines costs 35.
    const tiny = await issueToken(h.store, { workspace: "never", scopes: ["write"], rate: "30/s" });
    const { run, stored } = await throttledImport(h.origin, tiny.token, admin.token, 200);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("can never pass");
    expect(run.stderr).not.toContain("retrying");
    // Its contexts were created (throttled, at 30 a second); no contribution was.
    expect(stored).toBe(0);
  });
});
