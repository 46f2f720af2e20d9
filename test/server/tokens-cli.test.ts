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
