import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../helpers/cli.js";
import { startServer, type Harness } from "./harness.js";
import { uuidBytes } from "../../src/engine/store/values.js";

let box: Sandbox;
let h: Harness;

beforeAll(async () => {
  box = sandbox();
  h = await startServer({ dbPath: box.db, worker: false });
});

afterAll(async () => {
  await h?.close(true);
  box?.cleanup();
});

describe("ddsctl tokens", () => {
  it("create prints {tokenId, token, workspace, scopes} once; only the SHA-256 is stored", async () => {
    const r = await ddsctl(box, ["tokens", "create", "--workspace", "acme", "--scope", "write", "--name", "importer", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const issued = r.json();
    expect(Object.keys(issued).sort()).toEqual(["scopes", "token", "tokenId", "workspace"]);
    expect(issued).toMatchObject({ workspace: "acme", scopes: ["write"] });
    expect(issued.token).toMatch(/^dds_[A-Za-z0-9_-]{43}$/);
    const row = h.store.raw.prepare("SELECT lower(hex(token_hash)) AS token_hash FROM tokens WHERE uuid = ?").get(uuidBytes(issued.tokenId)) as { token_hash: string };
    expect(row.token_hash).toBe(createHash("sha256").update(issued.token).digest("hex"));
    h.store.raw.pragma("wal_checkpoint(TRUNCATE)");
    expect(readFileSync(box.db).includes(Buffer.from(issued.token))).toBe(false);
    const ok = await h.request("POST", "/v1/contexts", { token: issued.token, body: {} });
    expect(ok.status).toBe(201);
  });

  it("list never shows tokens or hashes; revoke takes effect on the running server at once", async () => {
    const issued = (await ddsctl(box, ["tokens", "create", "--scope", "read", "--json"])).json();
    expect((await h.request("GET", "/v1/models", { token: issued.token })).status).toBe(200);
    const list = await ddsctl(box, ["tokens", "list", "--json"]);
    expect(list.stdout).not.toContain(issued.token);
    const hash = createHash("sha256").update(issued.token).digest("hex");
    expect(list.stdout).not.toContain(hash);
    const mine = list.json().data.find((t: { tokenId: string }) => t.tokenId === issued.tokenId);
    expect(mine).toMatchObject({ workspace: "default", scopes: ["read"], revokedAt: null });
    expect(mine.lastUsedAt).not.toBeNull();
    const revoked = await ddsctl(box, ["tokens", "revoke", issued.tokenId, "--json"]);
    expect(revoked.exitCode, revoked.stderr).toBe(0);
    expect(revoked.json().revokedAt).not.toBeNull();
    const after = await h.request("GET", "/v1/models", { token: issued.token });
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toBe('Bearer realm="ddsctl"');
  });

  it("usage errors: a missing or unknown scope, a remote target; an unknown token is 404", async () => {
    expect((await ddsctl(box, ["tokens", "create"])).exitCode).toBe(2);
    const bad = await ddsctl(box, ["tokens", "create", "--scope", "root"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/unknown scope "root"; use one of read, write, admin/);
    const remote = await ddsctl(box, ["--remote", "http://127.0.0.1:1/v1", "tokens", "list"]);
    expect(remote.exitCode).toBe(2);
    expect(remote.stderr).toMatch(/never over HTTP|not over HTTP/);
    expect((await ddsctl(box, ["tokens", "revoke", "01900000-0000-7000-8000-000000000000"])).exitCode).toBe(4);
  });

  it("remote mode of the CLI works with a token and needs one", async () => {
    const issued = (await ddsctl(box, ["tokens", "create", "--scope", "admin", "--json"])).json();
    const env = { DDS_DB: "", DDS_BASE_URL: h.origin, DDS_API_TOKEN: issued.token };
    const created = await ddsctl(box, ["contexts", "create", "--name", "via-http", "--json"], { env });
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.json().name).toBe("via-http");
    const missing = await ddsctl(box, ["contexts", "list"], { env: { ...env, DDS_API_TOKEN: "" } });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/--token/);
  });
});

describe("tokens that expire", () => {
  it("tokens create --expires-in: shown by create and tokens list; once past, the token is a 401 that says it expired", async () => {
    const long = await ddsctl(box, ["tokens", "create", "--scope", "read", "--name", "quarterly", "--expires-in", "90d", "--json"]);
    expect(long.exitCode, long.stderr).toBe(0);
    const in90 = Date.parse(long.json().expiresAt) - Date.now();
    expect(in90).toBeGreaterThan(89 * 86_400_000);
    expect(in90).toBeLessThanOrEqual(90 * 86_400_000);
    expect((await h.request("GET", "/v1/models", { token: long.json().token })).status).toBe(200);

    const short = (await ddsctl(box, ["tokens", "create", "--scope", "read", "--name", "brief", "--expires-in", "2s", "--json"])).json();
    // Wait for the expiry itself (the condition, not a fixed sleep), then ask again.
    let reply = await h.request("GET", "/v1/models", { token: short.token });
    for (let i = 0; reply.status === 200 && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      reply = await h.request("GET", "/v1/models", { token: short.token });
    }
    expect(reply.status).toBe(401);
    expect(reply.json.code).toBe("unauthorized");
    expect(reply.json.detail).toBe(`the API token expired at ${short.expiresAt}; make a new one with ddsctl tokens create (and revoke this one)`);

    const listed = await ddsctl(box, ["tokens", "list", "-o", "wide"], { stdoutTTY: { columns: 300 } });
    expect(listed.stdout).toMatch(/^EXPIRES|\bEXPIRES\b/m);
    expect(listed.stdout).toContain(`${short.expiresAt} (expired)`);
    expect(listed.stdout).toContain(long.json().expiresAt);
    const json = (await ddsctl(box, ["tokens", "list", "--json"])).json().data as { name: string; expiresAt: string | null }[];
    expect(json.find((t) => t.name === "quarterly")?.expiresAt).toBe(long.json().expiresAt);
    expect(json.filter((t) => t.name !== "quarterly" && t.name !== "brief").every((t) => t.expiresAt === null)).toBe(true);
  });

  it("refuses an expiry that is not a duration above zero (exit 2)", async () => {
    for (const bad of ["soon", "0s", "-1d"]) {
      const r = await ddsctl(box, ["tokens", "create", "--scope", "read", "--expires-in", bad]);
      expect(r.exitCode, bad).toBe(2);
      expect(r.stderr, bad).toMatch(/--expires-in/);
    }
  });
});

describe("workspaces", () => {
  it("tokens create for a workspace the database does not have says so on stderr, naming those it has", async () => {
    const r = await ddsctl(box, ["tokens", "create", "--workspace", "acmee", "--scope", "read", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^warning: workspace "acmee" did not exist: created it, empty; the database's other workspaces: .*\bacme\b.* \(ddsctl workspaces list\)$/m);
    const again = await ddsctl(box, ["tokens", "create", "--workspace", "acmee", "--scope", "read"]);
    expect(again.stderr).not.toMatch(/did not exist/);
  });

  it("workspaces list shows every workspace with its tokens, models and contexts", async () => {
    const r = await ddsctl(box, ["workspaces", "list", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const byName = new Map((r.json().data as { name: string; tokens: number; models: number; contexts: number; createdAt: string }[]).map((w) => [w.name, w]));
    expect([...byName.keys()]).toEqual(expect.arrayContaining(["default", "acme", "acmee"]));
    expect(byName.get("acmee")).toMatchObject({ tokens: 2, models: 0, contexts: 0 });
    expect(byName.get("acme")?.contexts).toBeGreaterThanOrEqual(1);
    expect(byName.get("acme")?.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const table = await ddsctl(box, ["ws", "ls"]);
    expect(table.stdout.split("\n")[0]).toMatch(/^NAME\s+TOKENS\s+MODELS\s+CONTEXTS\s+CREATED$/);
  });
});
