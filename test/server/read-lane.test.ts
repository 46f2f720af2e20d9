import { request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken, revokeToken } from "../../src/engine/auth/index.js";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { openSqliteDatabase, type Store } from "../../src/engine/store/db.js";
import { startServer, type Harness } from "./harness.js";

// The read lane answers plain GETs outside the app and caches single-resource reads; these
// tests hold that it answers exactly as the app does and never serves what has changed.
let h: Harness;
let other: Store;
let token: string;
let contextId: string;
const logs: string[] = [];

beforeAll(async () => {
  h = await startServer({ worker: false, quiet: false, log: (line) => logs.push(line) });
  // A second connection to the same file: what another `ddsctl` process would write through.
  other = openSqliteDatabase(h.dbPath);
  token = await h.token("write");
  contextId = (await h.request("POST", "/v1/contexts", { token, body: { name: "lane" } })).json.contextId;
});
afterAll(async () => {
  other?.close();
  await h?.close();
});

const get = (path = `/v1/contexts/${contextId}`, t = token, headers: Record<string, string> = {}) => h.request("GET", path, { token: t, headers });

describe("the read lane", () => {
  it("answers like the app: same body, Content-Type, Content-Length, X-Request-Id and access-log line", async () => {
    const lane = await get(undefined, token, { "x-request-id": "trace-1" });
    const app = await get(`/v1/contexts/${contextId}?include=`); // a query string goes to the app
    expect(lane.status).toBe(200);
    expect(lane.text).toBe(app.text);
    expect(lane.headers.get("content-type")).toBe(app.headers.get("content-type"));
    expect(lane.headers.get("content-length")).toBe(String(Buffer.byteLength(lane.text)));
    expect(lane.headers.get("x-request-id")).toBe("trace-1");
    const line = JSON.parse(logs.find((l) => l.includes('"trace-1"'))!);
    expect(line).toMatchObject({ method: "GET", path: `/v1/contexts/${contextId}`, status: 200, workspace: "default", requestId: "trace-1" });
  });

  it("sends the app's header lines: the same names, case and order (values aside that differ per request)", async () => {
    const raw = (path: string) =>
      new Promise<string[]>((resolve, reject) => {
        request(`${h.origin}${path}`, { headers: { authorization: `Bearer ${token}`, "x-request-id": "same" } }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.rawHeaders));
        })
          .on("error", reject)
          .end();
      });
    // Names and the values that do not change from one request to the next.
    const shape = (lines: string[]) => lines.flatMap((l, i) => (i % 2 === 1 ? [] : [/^(ratelimit|date)$/i.test(l) ? l : `${l}: ${lines[i + 1]}`]));
    const path = `/v1/contexts/${contextId}`;
    await raw(path); // remembered: the next is answered from what was sent
    const [lane, again, app] = [await raw(path), await raw(path), await raw(`${path}?include=`)];
    expect(shape(lane)).toEqual(shape(app));
    expect(shape(again)).toEqual(shape(app));
    expect(lane.map((l) => l.toLowerCase())).toContain("ratelimit-policy");
  });

  it("leaves errors to the app: 401, 403, 404 and bad ids get their problem bodies", async () => {
    expect((await get(undefined, "dds_nope")).status).toBe(401);
    expect((await get(undefined, "dds_nope")).headers.get("www-authenticate")).toContain("Bearer");
    expect((await get("/v1/contexts/00000000-0000-7000-8000-000000000000")).json.code).toBe("not_found");
    expect((await get("/v1/webhooks", await h.token("read"))).status).toBe(200);
    expect((await get("/v1/tokens")).status).toBe(404);
  });

  it("never serves a cached read after a write through this server", async () => {
    expect((await get()).json.name).toBe("lane");
    await h.request("PATCH", `/v1/contexts/${contextId}`, { token, body: { name: "renamed" } });
    expect((await get()).json.name).toBe("renamed");
  });

  it("notices a commit by another connection, and a revocation there, on the very next request", async () => {
    const engine = createLocalEngine({ db: other });
    // Each time the cached answer is fresh (asked just before), and the other connection's
    // commit has returned before the next request is sent: no wait in between.
    for (let i = 0; i < 20; i++) {
      expect((await get()).json.name).not.toBe(`elsewhere-${i}`);
      expect((await get()).json.name).not.toBe(`elsewhere-${i}`);
      await engine.updateContext(contextId, { name: `elsewhere-${i}` });
      expect((await get()).json.name).toBe(`elsewhere-${i}`);
    }
    await engine.updateContext(contextId, { name: "renamed" });

    const doomed = await issueToken(other, { workspace: "default", scopes: ["read"] });
    expect((await get(undefined, doomed.token)).status).toBe(200);
    expect((await get(undefined, doomed.token)).status).toBe(200);
    await revokeToken(other, doomed.tokenId);
    expect((await get(undefined, doomed.token)).status).toBe(401);
  });

  it("reads sent together are answered together, each with every commit made before it was sent", async () => {
    const engine = createLocalEngine({ db: other });
    for (let i = 0; i < 10; i++) {
      // Cached first, then changed by the other connection, then asked by eight at once.
      await get();
      await engine.updateContext(contextId, { name: `together-${i}` });
      const answers = await Promise.all(Array.from({ length: 8 }, () => get()));
      expect(answers.map((a) => a.json.name)).toEqual(Array.from({ length: 8 }, () => `together-${i}`));
    }
    await engine.updateContext(contextId, { name: "renamed" });
  });

  it("a token revoked through the server's own connection is refused on the next request", async () => {
    const doomed = await issueToken(h.store, { workspace: "default", scopes: ["read"] });
    expect((await get(undefined, doomed.token)).status).toBe(200);
    await revokeToken(h.store, doomed.tokenId);
    expect((await get(undefined, doomed.token)).status).toBe(401);
  });

  it("answers a repeated read from what it sent, until its token expires: then the app's 401 says so", async () => {
    const brief = await issueToken(h.store, { workspace: "default", scopes: ["read"], expiresAt: new Date(Date.now() + 1500).toISOString() });
    const first = await get(undefined, brief.token);
    expect(first.status).toBe(200);
    // The same request again (nothing changed meanwhile): the same bytes, a new request id.
    const again = await get(undefined, brief.token);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    // Nothing is written meanwhile, yet the expired token is refused.
    for (const end = Date.now() + 20_000; Date.now() < end; await sleep(50)) if ((await get(undefined, brief.token)).status !== 200) break;
    const refused = await get(undefined, brief.token);
    expect(refused.status).toBe(401);
    expect(refused.json.detail).toMatch(/expired/);
  });

  it("keeps workspaces apart in its cache", async () => {
    const elsewhere = await h.token("admin", "elsewhere");
    expect((await get()).status).toBe(200);
    expect((await get(undefined, elsewhere)).status).toBe(404);
  });
});
