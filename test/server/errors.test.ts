import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Harness, type Reply } from "./harness.js";
import { seedWorkspace, type Seeded } from "./seed.js";

let h: Harness;
let s: Seeded;
let admin: string;
const MISSING = "01900000-0000-7000-8000-000000000000";

beforeAll(async () => {
  h = await startServer();
  admin = await h.token("admin");
  s = await seedWorkspace(h, admin);
});

afterAll(async () => {
  await s?.client.close();
  await h?.close();
});

const req = (method: string, path: string, body?: unknown) => h.request(method, `/v1${path}`, { token: admin, body });

/** Asserts a problem+json answer and returns its body. */
function problem(res: Reply, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  expect(res.json).toMatchObject({ status, code });
  expect(res.json.type).toMatch(/^https:\/\//);
  expect(typeof res.json.title).toBe("string");
  expect(typeof res.json.detail).toBe("string");
  return res.json;
}

const newContext = async () => (await req("POST", "/contexts", {})).json.contextId as string;
const newModel = async (name: string) => (await req("POST", "/models", { name, fields: [{ name: "x", type: "string" }] })).json.modelId as string;

describe("400 invalid_request", () => {
  it("malformed JSON", async () => {
    const p = problem(await req("POST", "/contexts", '{"name": '), 400, "invalid_request");
    expect(p.detail).toMatch(/malformed JSON/);
  });

  it("a body that is not an object, or missing where required", async () => {
    problem(await req("POST", "/models", "[1,2]"), 400, "invalid_request");
    problem(await req("POST", "/models"), 400, "invalid_request");
  });

  it("unknown properties, each listed in errors", async () => {
    const p = problem(await req("POST", "/contexts", { nme: "x", colour: "red" }), 400, "invalid_request");
    expect(p.errors).toEqual([{ path: "", message: 'unknown properties "nme", "colour"' }]);
    const m = problem(await req("POST", "/models", { name: "M", fields: [{ name: "a", type: "strin", bogus: 1 }] }), 400, "invalid_request");
    expect(m.errors.map((e: { path: string }) => e.path).sort()).toEqual(["fields.0", "fields.0.type"]);
  });

  it("bad limit", async () => {
    for (const limit of ["0", "501", "abc", "1.5"]) {
      const p = problem(await req("GET", `/models?limit=${limit}`), 400, "invalid_request");
      expect(p.errors[0].path).toBe("limit");
    }
    expect((await req("GET", "/models?limit=500")).status).toBe(200);
  });

  it("unknown filter field, operator and sort field, every one listed", async () => {
    const p = problem(await req("GET", "/contexts?filter[bogus][eq]=1&filter[name][like]=x&sort=-nope"), 400, "invalid_request");
    expect(p.errors.map((e: { path: string }) => e.path)).toEqual(["filter[bogus][eq]", "filter[name][like]", "sort"]);
    expect(p.detail).toMatch(/unknown filter field "bogus".*\(and 2 more\)/);
  });

  it("unknown query parameters, on lists and single resources", async () => {
    problem(await req("GET", "/models?page=2"), 400, "invalid_request");
    const p = problem(await req("GET", `/models/${s.models.Loan}?expand=all`), 400, "invalid_request");
    expect(p.errors).toEqual([{ path: "expand", message: 'unknown query parameter "expand"' }]);
    problem(await req("GET", `/records/${s.loanRecordId}?include=everything`), 400, "invalid_request");
  });

  it("unknown targetStatus spelling (and spellings are case-insensitive)", async () => {
    problem(await req("PUT", `/models/${s.models.Loan}/status/retired`), 400, "invalid_request");
    problem(await req("PUT", `/contexts/${s.contextId}/status/done`), 400, "invalid_request");
    problem(await req("PUT", `/rules/${s.ruleId}/status/paused`), 400, "invalid_request");
    const id = await newContext();
    expect((await req("PUT", `/contexts/${id}/status/COMPLETED`)).status).toBe(200);
  });

  it("PATCH that tries to change a lifecycle status names the endpoint to use", async () => {
    const p = problem(await req("PATCH", `/models/${s.models.Loan}`, { status: "archived" }), 400, "invalid_request");
    expect(p.detail).toContain("PUT /models/{modelId}/status/{targetStatus}");
  });

  it("bulk: over 100 items is bulk_limit_exceeded, empty is invalid, nothing processed", async () => {
    const item = { contextId: s.contextId, modelId: s.models.Employment, sourceId: "bulk", sourceType: "document", data: { employmentId: "bulk-x" } };
    problem(await req("POST", "/contributions/bulk", { items: Array.from({ length: 101 }, () => item) }), 400, "bulk_limit_exceeded");
    problem(await req("POST", "/contributions/bulk", { items: [] }), 400, "invalid_request");
    problem(await req("PATCH", "/records/bulk", { items: Array.from({ length: 101 }, () => ({ recordId: MISSING, data: {} })) }), 400, "bulk_limit_exceeded");
    problem(await req("DELETE", "/records/bulk", { items: [] }), 400, "invalid_request");
    expect((await req("GET", "/contributions?filter[sourceId][eq]=bulk")).json.data).toEqual([]);
  });
});

describe("404 not_found: unknown ids of every kind", () => {
  const paths = () => [
    `/models/${MISSING}`,
    `/models/${MISSING}/fields`,
    `/models/${s.models.Loan}/fields/nope`,
    `/fields/${MISSING}`,
    `/contexts/${MISSING}`,
    `/contexts/${MISSING}/evaluations`,
    `/contexts/${s.contextId}/evaluations/${MISSING}`,
    `/records/${MISSING}`,
    `/records/${MISSING}/relationships`,
    `/records/${s.loanRecordId}/relationships/nope`,
    `/contributions/${MISSING}`,
    `/rules/${MISSING}`,
    `/rules/${MISSING}/evaluations`,
    `/webhooks/${MISSING}`,
    `/webhooks/${MISSING}/deliveries`,
    "/models/not-a-uuid",
  ];
  it("GET", async () => {
    for (const path of paths()) problem(await req("GET", path), 404, "not_found");
  });

  it("writes and deletes", async () => {
    problem(await req("PATCH", `/models/${MISSING}`, { description: "x" }), 404, "not_found");
    problem(await req("DELETE", `/contexts/${MISSING}`), 404, "not_found");
    problem(await req("PATCH", `/records/${MISSING}`, { data: {} }), 404, "not_found");
    problem(await req("DELETE", `/records/${s.loanRecordId}/relationships/applicants/${MISSING}`), 404, "not_found");
    problem(await req("DELETE", `/webhooks/${MISSING}`), 404, "not_found");
    problem(await req("PUT", `/fields/${MISSING}`, { name: "x", type: "string" }), 404, "not_found");
  });

  it("a soft-deleted resource is 404", async () => {
    const id = await newContext();
    await req("PUT", `/contexts/${id}/status/completed`);
    await req("PUT", `/contexts/${id}/status/archived`);
    expect((await req("DELETE", `/contexts/${id}`)).status).toBe(204);
    problem(await req("GET", `/contexts/${id}`), 404, "not_found");
  });
});

describe("409 conflicts", () => {
  it("name_taken", async () => {
    problem(await req("POST", "/models", { name: "Loan", fields: [] }), 409, "name_taken");
  });

  it("model_not_archived and model_has_records (delete preconditions)", async () => {
    const id = await newModel("Deletable");
    problem(await req("DELETE", `/models/${id}`), 409, "model_not_archived");
    await req("PUT", `/models/${id}/status/active`);
    const ctx = await newContext();
    expect((await req("POST", "/contributions", { contextId: ctx, modelId: id, sourceId: "s", sourceType: "user", data: { x: "y" } })).status).toBe(201);
    await req("PUT", `/models/${id}/status/archived`);
    problem(await req("DELETE", `/models/${id}`), 409, "model_has_records");
  });

  it("context_not_archived", async () => {
    problem(await req("DELETE", `/contexts/${await newContext()}`), 409, "context_not_archived");
  });

  it("model_not_active and context_not_active (evidence)", async () => {
    const draft = await newModel("DraftOnly");
    problem(await req("POST", "/contributions", { contextId: s.contextId, modelId: draft, sourceId: "s", sourceType: "user", data: { x: "y" } }), 409, "model_not_active");
    const done = await newContext();
    await req("PUT", `/contexts/${done}/status/completed`);
    problem(await req("POST", "/contributions", { contextId: done, modelId: s.models.Loan, sourceId: "s", sourceType: "user", data: { amount: 5000 } }), 409, "context_not_active");
  });

  it("model_archived (field schema change)", async () => {
    const id = await newModel("Archivable");
    await req("PUT", `/models/${id}/status/active`);
    await req("PUT", `/models/${id}/status/archived`);
    problem(await req("POST", `/models/${id}/fields`, { name: "y", type: "string" }), 409, "model_archived");
  });
});

describe("422", () => {
  it("invalid_transition on models and contexts", async () => {
    const id = await newModel("Transitions");
    problem(await req("PUT", `/models/${id}/status/archived`), 422, "invalid_transition");
    await req("PUT", `/models/${id}/status/active`);
    await req("PUT", `/models/${id}/status/archived`);
    problem(await req("PUT", `/models/${id}/status/draft`), 422, "invalid_transition");
    const ctx = await newContext();
    problem(await req("PUT", `/contexts/${ctx}/status/archived`), 422, "invalid_transition");
    await req("PUT", `/contexts/${ctx}/status/completed`);
    await req("PUT", `/contexts/${ctx}/status/archived`);
    problem(await req("PUT", `/contexts/${ctx}/status/active`), 422, "invalid_transition");
  });

  it("validation_failed lists every problem", async () => {
    const p = problem(
      await req("POST", "/contributions", { contextId: s.contextId, modelId: s.models.Loan, sourceId: "s", sourceType: "document", data: { amount: 5, nope: 1 } }),
      422,
      "validation_failed",
    );
    expect(p.errors.map((e: { path: string }) => e.path).sort()).toEqual(["data.amount", "data.nope"]);
  });

  it("compile_failed for rules and model activation", async () => {
    const p = problem(await req("POST", "/rules", { name: "bad", category: "credit", severity: "low", expression: { frobnicate: [1] } }), 422, "compile_failed");
    expect(p.errors.length).toBeGreaterThan(0);
    const id = (await req("POST", "/models", { name: "Broken", fields: [{ name: "y", type: "number", computed: { expression: { var: "missing" } } }] })).json.modelId;
    problem(await req("PUT", `/models/${id}/status/active`), 422, "compile_failed");
  });
});

describe("routing", () => {
  it("unknown route is a 404 problem; a known path with the wrong method is 405 with Allow", async () => {
    problem(await req("GET", "/nope"), 404, "not_found");
    problem(await h.request("GET", "/elsewhere"), 404, "not_found");
    const res = await req("PUT", "/models");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST, GET");
    expect(res.json).toMatchObject({ status: 405, code: "method_not_allowed" });
    expect((await req("POST", `/records/${s.loanRecordId}`)).headers.get("allow")).toBe("GET, PATCH, DELETE");
  });

  it("/records/bulk is not captured by /records/{recordId}", async () => {
    const res = await req("PATCH", "/records/bulk", { items: [{ recordId: MISSING, data: {} }] });
    expect(res.status).toBe(200);
    expect(res.json.summary).toEqual({ total: 1, succeeded: 0, failed: 1 });
    const del = await req("DELETE", "/records/bulk", { items: [{ recordId: MISSING }] });
    expect(del.json.items[0]).toMatchObject({ index: 0, status: 404 });
  });
});

describe("500", () => {
  it("an unexpected failure is a generic problem without a stack", async () => {
    h.store.raw.exec("CREATE TRIGGER fail_contexts BEFORE INSERT ON contexts BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;");
    try {
      const p = problem(await req("POST", "/contexts", {}), 500, "internal_error");
      expect(p.detail).not.toContain("disk on fire");
      expect(JSON.stringify(p)).not.toMatch(/\bat .*\.(ts|js):\d+/);
    } finally {
      h.store.raw.exec("DROP TRIGGER fail_contexts");
    }
  });
});
