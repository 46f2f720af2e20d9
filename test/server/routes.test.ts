import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../src/contract/routes.js";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { openSqliteDatabase } from "../../src/engine/store/db.js";
import { startServer, type Harness } from "./harness.js";
import { bodyFor, fillPath } from "./route-fill.js";
import { seedWorkspace, type Seeded } from "./seed.js";

let h: Harness;
let s: Seeded;
let admin: string;
const lines: string[] = [];

beforeAll(async () => {
  h = await startServer({ quiet: false, log: (line) => lines.push(line) });
  admin = await h.token("admin");
  s = await seedWorkspace(h, admin);
});

afterAll(async () => {
  await s?.client.close();
  await h?.close();
});

describe("the route table", () => {
  it("has exactly one route per REST operation of the service", () => {
    const engine = createLocalEngine({ db: openSqliteDatabase(":memory:") });
    const operations = Object.keys(engine).filter((k) => !["ctx", "pipeline", "runPipeline", "close", "writeGroup", "expandReplay"].includes(k)).sort();
    expect(ROUTES.map((r) => r.operation).sort()).toEqual(operations);
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("puts /records/bulk before /records/{recordId}", () => {
    const at = (p: string, m: string) => ROUTES.findIndex((r) => r.path === p && r.method === m);
    for (const m of ["PATCH", "DELETE"]) expect(at("/records/bulk", m)).toBeLessThan(at("/records/{recordId}", m));
  });
});

describe("unauthenticated endpoints", () => {
  it("GET /healthz answers 200 without a token", async () => {
    const res = await h.request("GET", "/healthz");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: "ok", database: "reachable" });
  });

  it("GET /v1/openapi.json is a valid OpenAPI 3.1 document covering every route", async () => {
    const res = await h.request("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe("3.1.0");
    const result = await new Validator().validate(res.json);
    expect(result, JSON.stringify(result.errors)).toMatchObject({ valid: true });
    for (const r of ROUTES) expect(res.json.paths[`/v1${r.path}`]?.[r.method.toLowerCase()], `${r.method} ${r.path}`).toBeDefined();
    expect(res.json.components.schemas.TraceStep.properties.children.items.$ref).toBe("#/components/schemas/TraceStep");
    expect(res.json.paths["/v1/models/{modelId}"].get.responses["200"].content["application/json"].schema.$ref).toBe("#/components/schemas/Model");
  });
});

describe("responses", () => {
  it("201 carries Location: /v1/<collection>/<id> on every create route", async () => {
    for (const route of ROUTES.filter((r) => r.status === 201)) {
      const res = await h.request(route.method, fillPath(route, s), { token: admin, body: { ...(bodyFor(route, s) as object), ...(route.operation === "createModel" ? { name: "LocTest" } : {}), ...(route.operation === "createRule" ? { name: "loc-rule" } : {}), ...(route.operation === "createField" ? { name: "loc" } : {}) } });
      expect(res.status, `${route.path}: ${res.text}`).toBe(201);
      const id = res.json[route.created!.idField];
      expect(res.headers.get("location")).toBe(`/v1/${route.created!.collection}/${id}`);
      expect((await h.request("GET", res.headers.get("location")!, { token: admin })).status).toBe(200);
    }
  });

  it("204 has no body", async () => {
    const ctx = (await h.request("POST", "/v1/contexts", { token: admin, body: {} })).json.contextId;
    await h.request("PUT", `/v1/contexts/${ctx}/status/completed`, { token: admin });
    await h.request("PUT", `/v1/contexts/${ctx}/status/archived`, { token: admin });
    const res = await h.request("DELETE", `/v1/contexts/${ctx}`, { token: admin });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
  });

  it("list envelopes: models, nextCursor, hasNextPage for models; data for the rest", async () => {
    const models = await h.request("GET", "/v1/models?limit=1", { token: admin });
    expect(Object.keys(models.json).sort()).toEqual(["hasNextPage", "models", "nextCursor"]);
    expect(models.json.hasNextPage).toBe(true);
    const next = await h.request("GET", `/v1/models?limit=1&cursor=${encodeURIComponent(models.json.nextCursor)}`, { token: admin });
    expect(next.json.models[0].modelId).not.toBe(models.json.models[0].modelId);
    for (const path of ["/v1/contexts", "/v1/fields", `/v1/models/${s.models.Loan}/fields`, "/v1/records", "/v1/contributions", "/v1/rules", `/v1/contexts/${s.contextId}/evaluations`, "/v1/webhooks"]) {
      const res = await h.request("GET", path, { token: admin });
      expect(Object.keys(res.json).sort(), path).toEqual(["data", "hasNextPage", "nextCursor"]);
    }
    const filtered = await h.request("GET", `/v1/fields?filter[modelId][eq]=${s.models.Loan}`, { token: admin });
    expect(new Set(filtered.json.data.map((f: { modelId: string }) => f.modelId))).toEqual(new Set([s.models.Loan]));
  });

  it("GET /records/{id}?include=model,lineage and /contexts/{id}?include=summary", async () => {
    const rec = await h.request("GET", `/v1/records/${s.loanRecordId}?include=model,lineage`, { token: admin });
    expect(rec.json.model.name).toBe("Loan");
    expect(rec.json.lineage.amount).toMatchObject({ policy: "highest_confidence", sourceType: "document" });
    const ctx = await h.request("GET", `/v1/contexts/${s.contextId}?include=summary`, { token: admin });
    expect(ctx.json.summary.records.total).toBeGreaterThanOrEqual(3);
  });
});

describe("access log", () => {
  it("writes one JSON line per request, with the workspace and request id, never the token", async () => {
    lines.length = 0;
    const res = await h.request("GET", "/v1/models", { token: admin, headers: { "x-request-id": "req-42" } });
    expect(res.headers.get("x-request-id")).toBe("req-42");
    await h.request("GET", "/healthz");
    expect(lines).toHaveLength(2);
    const entry = JSON.parse(lines[0]);
    expect(entry).toMatchObject({ method: "GET", path: "/v1/models", status: 200, workspace: "default", requestId: "req-42" });
    expect(typeof entry.ms).toBe("number");
    expect(entry.time).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(lines.join("\n")).not.toContain(admin);
    expect(JSON.parse(lines[1]).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
