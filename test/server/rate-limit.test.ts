import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpClient, type RetryNotice } from "../../src/client/index.js";
import { DdsError } from "../../src/contract/errors.js";
import { issueToken, setTokenRate, setWorkspaceRate } from "../../src/engine/auth/index.js";
import { startServer, type Harness, type Reply } from "./harness.js";

// Rate limits on SQLite (one node holds every budget): costs, bursts, refusals, isolation.
// Every limit here has a window of a day, so what refills while a test runs (a unit per
// 86 s at 1,000 a day) never moves a count: the tests count, they never time.
const DAY = 86_400;
const lines: string[] = [];
let h: Harness;

beforeAll(async () => {
  h = await startServer({
    rateLimits: { workspace: { quota: 100_000, windowSeconds: DAY }, token: { quota: 1000, windowSeconds: DAY } },
    metrics: { port: 0 },
    log: (line) => lines.push(line),
  });
});
afterAll(async () => h?.close());

/** A token of `workspace` with its own limit (`rate`), or the server's default. */
async function tokenOf(workspace: string, scope: "read" | "write" | "admin", rate?: string): Promise<{ token: string; tokenId: string }> {
  const issued = await issueToken(h.store, { workspace, scopes: [scope], rate });
  return { token: issued.token, tokenId: issued.tokenId };
}

/** The RateLimit header as numbers: `{workspace: {r, t}, token: {r, t}}`. */
function rateOf(reply: Reply): Record<string, { r: number; t: number }> {
  const header = reply.headers.get("ratelimit");
  expect(header, `${reply.status} ${reply.text.slice(0, 200)}`).toBeTruthy();
  const out: Record<string, { r: number; t: number }> = {};
  for (const item of header!.split(",")) {
    const m = /^\s*"(\w+)";r=(\d+);t=(\d+)\s*$/.exec(item);
    expect(m, header!).toBeTruthy();
    out[m![1]] = { r: Number(m![2]), t: Number(m![3]) };
  }
  return out;
}

/** A workspace with one active model and one context, made by an admin token that has no limit of its own. */
async function workspaceWithModel(workspace: string): Promise<{ modelId: string; contextId: string }> {
  const { token } = await tokenOf(workspace, "admin", "off");
  const model = await h.request("POST", "/v1/models", { token, body: { name: "Item", fields: [{ name: "n", type: "integer" }] } });
  await h.request("PUT", `/v1/models/${model.json.modelId}/status/active`, { token });
  const context = await h.request("POST", "/v1/contexts", { token, body: { name: "case" } });
  return { modelId: model.json.modelId, contextId: context.json.contextId };
}

const items = (n: number, modelId: string, contextId: string) =>
  Array.from({ length: n }, (_, i) => ({ contextId, modelId, sourceId: `s-${i}`, sourceType: "document", data: { n: i } }));

describe("what a request costs", () => {
  it("a read costs 1, a single create 10, a bulk of 100 items 35, from the token's budget and its workspace's alike", async () => {
    const { modelId, contextId } = await workspaceWithModel("costs");
    const { token } = await tokenOf("costs", "write");
    // The read lane (a plain GET) and the app answer with the same headers.
    const first = await h.request("GET", `/v1/contexts/${contextId}`, { token });
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-policy")).toBe(`"workspace";q=100000;w=${DAY}, "token";q=1000;w=${DAY}`);
    const start = rateOf(first);
    expect(start.token.r).toBe(999);

    const created = await h.request("POST", "/v1/contexts", { token, body: { name: "another" } });
    expect(created.status).toBe(201);
    expect(rateOf(created).token.r).toBe(989);
    expect(rateOf(created).workspace.r).toBe(start.workspace.r - 10);

    const bulk = await h.request("POST", "/v1/contributions/bulk", { token, body: { items: items(100, modelId, contextId) } });
    expect(bulk.status, bulk.text).toBe(200);
    expect(rateOf(bulk).token.r).toBe(989 - 35);
    expect(rateOf(bulk).workspace.r).toBe(start.workspace.r - 45);

    const small = await h.request("POST", "/v1/contributions/bulk", { token, body: { items: items(9, modelId, contextId).map((x) => ({ ...x, sourceId: `t-${x.sourceId}` })) } });
    expect(rateOf(small).token.r).toBe(954 - 13);
    // A read the app answers (a query string) costs what the lane's does.
    const listed = await h.request("GET", "/v1/contexts?limit=5", { token });
    expect(rateOf(listed).token.r).toBe(940);
  });

  it("every answer of a limited route carries the headers, errors too; a read the lane gives up on is charged once", async () => {
    const { token } = await tokenOf("answers", "write");
    const missing = await h.request("GET", "/v1/contexts/0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10", { token });
    expect(missing.status).toBe(404);
    expect(rateOf(missing).token.r).toBe(999);
    const bad = await h.request("POST", "/v1/contexts", { token, body: "{ nope" });
    expect(bad.status).toBe(400);
    expect(rateOf(bad).token.r).toBe(989);
    const keyed = { token, body: { name: "k" }, headers: { "idempotency-key": "answers-1" } };
    expect(rateOf(await h.request("POST", "/v1/contexts", keyed)).token.r).toBe(979);
    const replay = await h.request("POST", "/v1/contexts", keyed);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(rateOf(replay).token.r).toBe(969);
  });

  it("/healthz, /readyz, /v1/openapi.json and /metrics are not limited, and a refused token gets no headers", async () => {
    for (const path of ["/healthz", "/readyz", "/v1/openapi.json"]) {
      const r = await h.request("GET", path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get("ratelimit"), path).toBeNull();
      expect(r.headers.get("ratelimit-policy"), path).toBeNull();
    }
    const scrape = await fetch(h.server.metricsUrl!);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get("ratelimit")).toBeNull();
    const unknown = await h.request("GET", "/v1/models", { token: "dds_nope" });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("ratelimit")).toBeNull();
  });
});

describe("over the limit", () => {
  it("a burst of exactly the quota passes, then 429 rate_limited naming the limit and the cost, with Retry-After; nothing applied, the key still usable", async () => {
    const { token, tokenId } = await tokenOf("burst", "write", "30/1d");
    for (let i = 1; i <= 3; i++) {
      const r = await h.request("POST", "/v1/contexts", { token, body: { name: `c${i}` }, headers: { "idempotency-key": `burst-${i}` } });
      expect(r.status).toBe(201);
    }
    const refused = await h.request("POST", "/v1/contexts", { token, body: { name: "c4" }, headers: { "idempotency-key": "burst-4" } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(refused.json).toMatchObject({ status: 429, code: "rate_limited", type: "https://ddsctl.dev/problems/rate-limited", title: "Too Many Requests" });
    expect(refused.json.detail).toContain("costs 10 units");
    expect(refused.json.detail).toContain("this token's rate limit of 30/d");
    // 10 units refill in 10 × 86,400 / 30 s.
    expect(Number(refused.headers.get("retry-after"))).toBe(28_800);
    expect(rateOf(refused).token).toEqual({ r: 0, t: DAY });
    expect(refused.headers.get("ratelimit-policy")).toBe(`"workspace";q=100000;w=${DAY}, "token";q=30;w=${DAY}`);
    // A refusal costs the workspace nothing: its budget is as the third create left it.
    expect(rateOf(refused).workspace.r).toBe(100_000 - 30);

    const { token: reader } = await tokenOf("burst", "read", "off");
    const names = (await h.request("GET", "/v1/contexts?limit=50", { token: reader })).json.data.map((c: { name: string }) => c.name);
    expect(names.sort()).toEqual(["c1", "c2", "c3"]);

    // The same key, once the limit allows it: run for the first time (not a replayed 429).
    await setTokenRate(h.store, tokenId, "1000/1d");
    const retried = await h.request("POST", "/v1/contexts", { token, body: { name: "c4" }, headers: { "idempotency-key": "burst-4" } });
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    const again = await h.request("POST", "/v1/contexts", { token, body: { name: "c4" }, headers: { "idempotency-key": "burst-4" } });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json.contextId).toBe(retried.json.contextId);
  });

  it("a bulk costing more than the limit allows at once is refused as one that can never pass, without Retry-After; the client does not retry it", async () => {
    const { modelId, contextId } = await workspaceWithModel("never");
    const { token } = await tokenOf("never", "write", "20/1d");
    const fits = await h.request("POST", "/v1/contributions/bulk", { token, body: { items: items(10, modelId, contextId) } });
    expect(fits.status).toBe(200);
    const refused = await h.request("POST", "/v1/contributions/bulk", { token, body: { items: items(100, modelId, contextId) } });
    expect(refused.status).toBe(429);
    expect(refused.json.detail).toContain("costs 35 units, more than this token's rate limit of 20/d allows at once (20): it can never pass");
    expect(refused.headers.get("retry-after")).toBeNull();

    const notices: RetryNotice[] = [];
    const client = createHttpClient({ baseUrl: `${h.origin}/v1`, token, onRetry: (n) => notices.push(n) });
    try {
      const err = await client.bulkCreateContributions({ items: items(100, modelId, contextId) as never }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DdsError);
      expect((err as DdsError).code).toBe("rate_limited");
      expect(notices).toEqual([]);
    } finally {
      await client.close();
    }
    // Nothing of the refused bulks was stored.
    const { token: reader } = await tokenOf("never", "read", "off");
    expect((await h.request("GET", "/v1/contributions?limit=500", { token: reader })).json.data).toHaveLength(10);
  });
});

describe("budgets apart", () => {
  it("two tokens of one workspace, and two workspaces, do not take from each other", async () => {
    await setWorkspaceRate(h.store, "apart", "50/1d");
    const a1 = await tokenOf("apart", "read", "20/1d");
    const a2 = await tokenOf("apart", "read");
    const b1 = await tokenOf("elsewhere", "read", "20/1d");
    const get = (token: string) => h.request("GET", "/v1/models", { token });
    for (let i = 0; i < 20; i++) expect((await get(a1.token)).status).toBe(200);
    // a1's own limit refuses it, however often it asks, and its workspace pays nothing for that.
    for (let i = 0; i < 10; i++) {
      const r = await get(a1.token);
      expect(r.status).toBe(429);
      expect(r.json.detail).toContain("this token's rate limit of 20/d");
    }
    let admitted = 0;
    for (let i = 0; i < 40; i++) if ((await get(a2.token)).status === 200) admitted++;
    expect(admitted).toBe(30);
    const byWorkspace = await get(a2.token);
    expect(byWorkspace.json.detail).toContain("workspace apart's rate limit of 50/d");
    // Another workspace's token, with the same limit as a1, starts full.
    for (let i = 0; i < 20; i++) expect((await get(b1.token)).status).toBe(200);
    expect((await get(b1.token)).status).toBe(429);
  });

  it("refusals are counted by limit and class, and logged once per token per minute", async () => {
    const { token, tokenId } = await tokenOf("counted", "read", "2/1d");
    const noisy = await tokenOf("counted-too", "read");
    await setWorkspaceRate(h.store, "counted-too", "1/1d");
    const before = await scrape();
    for (let i = 0; i < 7; i++) await h.request("GET", "/v1/models", { token });
    for (let i = 0; i < 4; i++) await h.request("GET", "/v1/models", { token: noisy.token });
    const after = await scrape();
    expect(after.get('limit="token",class="custom"')! - (before.get('limit="token",class="custom"') ?? 0)).toBe(5);
    expect(after.get('limit="workspace",class="custom"')! - (before.get('limit="workspace",class="custom"') ?? 0)).toBe(3);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === "rate_limited" && l.tokenId === tokenId);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ workspace: "counted", limit: "token", class: "custom", cost: 1, suppressed: 0 });
    expect(JSON.stringify(lines)).not.toContain(token);
  });
});

/** The rate-limited counter by its label pair. */
async function scrape(): Promise<Map<string, number>> {
  const text = await (await fetch(h.server.metricsUrl!)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^dds_http_rate_limited_total\{(.+)\} (\d+)$/gm)) out.set(m[1], Number(m[2]));
  return out;
}
