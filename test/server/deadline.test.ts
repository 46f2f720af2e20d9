import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthenticator, issueToken } from "../../src/engine/auth/index.js";
import { openSqliteDatabase, type SqliteStore } from "../../src/engine/store/db.js";
import { createApp } from "../../src/server/app.js";
import { appOver } from "../../src/engine/app.js";

/**
 * The last bound on a request: one whose work neither finishes nor fails (a database that
 * stopped answering) is answered 503 with Retry-After when its time is up, never left
 * hanging; the work's own outcome is still what a keyed retry gets.
 */
let dir: string;
let store: SqliteStore;
let token: string;
let release: () => void = () => undefined;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ddsctl-deadline-"));
  store = openSqliteDatabase(join(dir, "dds.db"));
  token = (await issueToken(store, { workspace: "default", scopes: ["admin"] })).token;
});
afterAll(async () => {
  release();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a request that outlives its deadline", () => {
  it("is answered 503 database_unavailable with Retry-After", async () => {
    const real = createAuthenticator(store);
    const stuck = new Promise<void>((r) => (release = r));
    const auth: typeof real = { cached: () => undefined, authenticate: async (t, s) => (await stuck, real.authenticate(t, s)) };
    const app = createApp({ app: appOver(store, { env: {} }), activity: { lastWriteAt: 0, closing: false }, auth, deadlineMs: 200 });
    const res = await app.request("/v1/contexts", { headers: { authorization: `Bearer ${token}` } });
    expect([res.status, res.headers.get("retry-after"), res.headers.get("content-type")]).toEqual([503, "2", "application/problem+json"]);
    expect(await res.json()).toMatchObject({ code: "database_unavailable", detail: expect.stringContaining("did not finish within") });
  });
});
