import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pathParams, ROUTES } from "../../src/contract/routes.js";
import { issueToken, revokeToken } from "../../src/engine/auth/index.js";
import { startServer, type Harness } from "./harness.js";
import { bodyFor, fillPath } from "./route-fill.js";
import { seedWorkspace, type Seeded } from "./seed.js";

let h: Harness;
let a: Seeded;
const t = { adminA: "", readA: "", writeA: "", adminB: "", revoked: "" };

beforeAll(async () => {
  h = await startServer();
  t.adminA = await h.token("admin", "acme");
  t.readA = await h.token("read", "acme");
  t.writeA = await h.token("write", "acme");
  t.adminB = await h.token("admin", "globex");
  const doomed = await issueToken(h.store, { workspace: "acme", scopes: ["admin"] });
  await revokeToken(h.store, doomed.tokenId);
  t.revoked = doomed.token;
  a = await seedWorkspace(h, t.adminA);
});

afterAll(async () => {
  await a?.client.close();
  await h?.close();
});

const call = (route: (typeof ROUTES)[number], token?: string) =>
  h.request(route.method, fillPath(route, a), { token, body: bodyFor(route, a) });

const label = (r: (typeof ROUTES)[number]) => `${r.method} ${r.path}`;
const writes = ROUTES.filter((r) => r.scope !== "read");
const admins = ROUTES.filter((r) => r.scope === "admin");

describe("authentication on every route", () => {
  it.each(ROUTES.map((r) => [label(r), r] as const))("%s: 401 without a token", async (_l, route) => {
    const res = await call(route);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="ddsctl"');
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.json).toMatchObject({ status: 401, code: "unauthorized" });
  });

  it.each(ROUTES.map((r) => [label(r), r] as const))("%s: 401 with an invalid or revoked token", async (_l, route) => {
    for (const token of ["dds_not-a-real-token", "garbage", t.revoked]) {
      const res = await call(route, token);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="ddsctl"');
      expect(res.json.code).toBe("unauthorized");
    }
  });

  it("rejects a non-Bearer Authorization header", async () => {
    const res = await h.request("GET", "/v1/models", { headers: { authorization: `Basic ${t.adminA}` } });
    expect(res.status).toBe(401);
  });
});

describe("scopes on every route", () => {
  it.each(writes.map((r) => [label(r), r] as const))("%s: 403 for a read token", async (_l, route) => {
    const res = await call(route, t.readA);
    expect(res.status).toBe(403);
    expect(res.json.code).toBe("forbidden");
  });

  it.each(admins.map((r) => [label(r), r] as const))("%s: 403 for a write token", async (_l, route) => {
    const res = await call(route, t.writeA);
    expect(res.status).toBe(403);
    expect(res.json.detail).toContain("admin");
  });

  it.each(ROUTES.filter((r) => r.method === "GET").map((r) => [label(r), r] as const))("%s: 200 for a read token", async (_l, route) => {
    const res = await call(route, t.readA);
    expect(res.status, res.text).toBe(200);
  });
});

describe("workspace isolation on every route", () => {
  const targeted = ROUTES.filter((r) => pathParams(r.path).length > 0);
  it.each(targeted.map((r) => [label(r), r] as const))("%s: another workspace's resource is 404", async (_l, route) => {
    const res = await call(route, t.adminB);
    expect(res.status, res.text).toBe(404);
    expect(res.json.code).toBe("not_found");
  });

  it.each(ROUTES.filter((r) => r.bulk).map((r) => [label(r), r] as const))("%s: every item naming another workspace is 404", async (_l, route) => {
    const res = await call(route, t.adminB);
    expect(res.status).toBe(200);
    expect(res.json.items.map((i: { status: number }) => i.status)).toEqual([404]);
  });

  it("createContribution into another workspace's context is 404", async () => {
    const route = ROUTES.find((r) => r.operation === "createContribution")!;
    expect((await call(route, t.adminB)).status).toBe(404);
  });

  it("evaluateRule cannot read another workspace's rule or context", async () => {
    const route = ROUTES.find((r) => r.operation === "evaluateRule")!;
    expect((await call(route, t.readA)).status).toBe(200);
    expect((await call(route, t.adminB)).status).toBe(404);
    const draft = await h.request("POST", "/v1/rules/evaluate", { token: t.adminB, body: { expression: { "==": [1, 1] }, contextId: a.contextId } });
    expect(draft.status).toBe(404);
  });

  it.each(ROUTES.filter((r) => r.query.kind === "list" && pathParams(r.path).length === 0).map((r) => [label(r), r] as const))(
    "%s: another workspace's list holds none of its resources",
    async (_l, route) => {
      const res = await call(route, t.adminB);
      expect(res.status).toBe(200);
      for (const id of [a.models.Loan, a.fieldId, a.contextId, a.contributionId, a.loanRecordId, a.ruleId, a.webhookId]) expect(res.text).not.toContain(id);
    },
  );

  it("pipeline status counts only the token's workspace", async () => {
    const res = await h.request("GET", "/v1/pipeline/status", { token: t.adminB });
    expect(res.json).toEqual({ contexts: { resolved: 0, stale: 0, computing: 0 }, waiting: 0, expiredClaims: 0 });
    const mine = await h.request("GET", "/v1/pipeline/status", { token: t.readA });
    expect(mine.json.contexts.resolved).toBeGreaterThanOrEqual(1);
  });

  it("resources created in one workspace stay there, and nothing of the other was touched", async () => {
    for (const route of ROUTES.filter((r) => r.status === 201 && pathParams(r.path).length === 0 && r.operation !== "createContribution")) {
      expect((await call(route, t.adminB)).status, label(route)).toBe(201);
    }
    const models = await h.request("GET", "/v1/models", { token: t.readA });
    expect(models.json.models.map((m: { name: string }) => m.name).sort()).toEqual(["Applicant", "Employment", "Loan"]);
    const record = await h.request("GET", `/v1/records/${a.loanRecordId}`, { token: t.readA });
    expect(record.json.data.amount).toBe(200000);
    const context = await h.request("GET", `/v1/contexts/${a.contextId}`, { token: t.readA });
    expect(context.json).toMatchObject({ status: "active", name: "seed" });
    expect((await h.request("GET", `/v1/models/${a.models.Loan}`, { token: t.readA })).json.status).toBe("active");
  });

  it("records the acting token as createdBy", async () => {
    const res = await h.request("POST", "/v1/contexts", { token: t.writeA, body: {} });
    expect(res.status).toBe(201);
    const c = await h.request("POST", "/v1/contributions", {
      token: t.writeA,
      body: { contextId: res.json.contextId, modelId: a.models.Loan, sourceId: "x", sourceType: "user", data: { amount: 5000 } },
    });
    expect(c.json.createdBy).toMatch(/^token:[0-9a-f-]{36}$/);
  });
});
