import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/contract/json-limits.js";
import { ROUTES } from "../../src/contract/routes.js";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { openSqliteDatabase } from "../../src/engine/store/db.js";
import { startServer, type Harness, type Reply } from "./harness.js";
import { fillPath } from "./route-fill.js";
import { seedWorkspace, type Seeded } from "./seed.js";
import { uuidBytes } from "../../src/engine/store/values.js";

let h: Harness;
let s: Seeded;
let admin: string;

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
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

function problem(res: Reply, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  expect(res.json).toMatchObject({ status, code });
  return res.json as { detail: string; errors?: { path: string; message: string }[] };
}

/** `{"a":{"a":…1…}}` nested `n` objects deep, as text (JSON.stringify of it would recurse). */
const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
const deepArray = (n: number) => "[".repeat(n) + "1" + "]".repeat(n);

describe("cursors the server did not make", () => {
  const forged = [[true, "x"], [{}, "x"], [false, null], [[], []], [[1], "x"], ["2026-01-01T00:00:00.000Z", "01900000-0000-7000-8000-000000000000"]].map(b64);
  const lists = ROUTES.filter((r) => r.query.kind === "list");

  it("are a 400 invalid_request on every list route, well-typed ones too", async () => {
    expect(lists.length).toBeGreaterThanOrEqual(9);
    for (const route of lists) {
      for (const cursor of [...forged, "garbage", "a.b", `${b64(["x", "y"])}.AAAAAAAAAAAAAAAAAAAAAA`]) {
        const p = problem(await req("GET", `${fillPath(route, s).slice(3)}?cursor=${cursor}`), 400, "invalid_request");
        expect(p.detail).toMatch(/cursor is invalid/);
      }
    }
  });

  it("a real cursor pages on, and is refused under another sort order or on another list", async () => {
    for (let i = 0; i < 3; i++) await req("POST", "/contexts", { name: `page-${i}` });
    const first = (await req("GET", "/contexts?limit=1")).json;
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await req("GET", `/contexts?limit=1&cursor=${first.nextCursor}`);
    expect(second.status).toBe(200);
    expect(second.json.data[0].contextId).not.toBe(first.data[0].contextId);
    problem(await req("GET", `/contexts?limit=1&sort=-createdAt&cursor=${first.nextCursor}`), 400, "invalid_request");
    problem(await req("GET", `/rules?limit=1&cursor=${first.nextCursor}`), 400, "invalid_request");
  });

  it("are refused by the local engine too", async () => {
    const engine = createLocalEngine({ db: openSqliteDatabase(":memory:") });
    for (const cursor of forged) await expect(engine.listContexts({ cursor })).rejects.toMatchObject({ status: 400, code: "invalid_request" });
    engine.close();
  });
});

describe(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`, () => {
  it("is a 422 validation_failed with the path, on every route named in the finding", async () => {
    const cases: [string, string, string, RegExp][] = [
      ["POST", "/contexts", `{"metadata":${deepObject(5000)}}`, /^metadata(\.a)+$/],
      ["PATCH", `/contexts/${s.contextId}`, `{"metadata":${deepObject(5000)}}`, /^metadata(\.a)+$/],
      ["POST", "/rules/evaluate", `{"expression":{"var":"a"},"data":${deepObject(10_000)}}`, /^data(\.a)+$/],
      ["POST", "/contexts", `{"metadata":{"x":${deepArray(1000)}}}`, /^metadata\.x(\.0)+$/],
    ];
    for (const [method, path, body, at] of cases) {
      const p = problem(await req(method, path, body), 422, "validation_failed");
      expect(p.errors?.[0].path).toMatch(at);
      expect(p.errors?.[0].message).toMatch(new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`));
    }
  });

  it("in a json field of a contribution, single or bulk", async () => {
    await req("POST", `/models/${s.models.Loan}/fields`, { name: "blob", type: "json" });
    const data = (n: number) => `{"contextId":"${s.contextId}","modelId":"${s.models.Loan}","sourceId":"deep","sourceType":"document","data":{"blob":${deepObject(n)}}}`;
    problem(await req("POST", "/contributions", data(5000)), 422, "validation_failed");
    problem(await req("POST", "/contributions/bulk", `{"items":[${data(5000)}]}`), 422, "validation_failed");
    expect((await req("POST", "/contributions", data(10))).status).toBe(201);
  });

  it("is refused by the local engine before anything walks it", async () => {
    const engine = createLocalEngine({ db: openSqliteDatabase(":memory:") });
    await expect(engine.createContext({ metadata: JSON.parse(deepObject(5000)) })).rejects.toMatchObject({ status: 422, code: "validation_failed" });
    engine.close();
  });

  it("up to the limit is accepted", async () => {
    const res = await req("POST", "/contexts", `{"metadata":${deepObject(MAX_JSON_DEPTH - 1)}}`);
    expect(res.status, res.text).toBe(201);
  });
});

describe("one stored value SQLite cannot read", () => {
  it("does not turn the workspace's metadata filters into errors", async () => {
    const poisoned = (await req("POST", "/contexts", { name: "poisoned", metadata: { region: "west" } })).json.contextId as string;
    const fine = (await req("POST", "/contexts", { name: "fine", metadata: { region: "west" } })).json.contextId as string;
    // As a database written before the depth limit could hold: 1,001 levels, past SQLite's 1,000.
    h.store.raw.prepare("UPDATE contexts SET metadata = ? WHERE uuid = ?").run(`{"region":"west","x":${deepArray(1001)}}`, uuidBytes(poisoned));
    for (const query of ["filter[metadata.region][eq]=west", "filter[metadata.region][ne]=east", "filter[metadata.x][contains]=1", "filter[metadata.region][in]=west,east"]) {
      const res = await req("GET", `/contexts?${query}&limit=500`);
      expect(res.status, `${query}: ${res.text}`).toBe(200);
    }
    const ids = (await req("GET", "/contexts?filter[metadata.region][eq]=west&limit=500")).json.data.map((c: { contextId: string }) => c.contextId);
    expect(ids).toContain(fine);
    expect(ids).not.toContain(poisoned);
  });
});

describe("keys __proto__, constructor and prototype", () => {
  it("are a 422 with the path wherever they sit, never dropped", async () => {
    const contribution = (data: string) =>
      `{"contextId":"${s.contextId}","modelId":"${s.models.Loan}","sourceId":"proto","sourceType":"document","data":${data}}`;
    const cases: [string, string, string, string][] = [
      ["POST", "/contributions", contribution('{"__proto__":{"amount":5}}'), "data.__proto__"],
      ["POST", "/contexts", '{"metadata":{"a":[{"constructor":1}]}}', "metadata.a.0.constructor"],
      ["PATCH", `/contexts/${s.contextId}`, '{"metadata":{"prototype":{}}}', "metadata.prototype"],
      ["POST", "/rules/evaluate", '{"expression":{"var":"a"},"data":{"__proto__":{"a":1}}}', "data.__proto__"],
      ["POST", "/contexts", '{"__proto__":{"name":"x"}}', "__proto__"],
    ];
    for (const [method, path, body, at] of cases) {
      const p = problem(await req(method, path, body), 422, "validation_failed");
      expect(p.errors?.map((e) => e.path)).toContain(at);
    }
    const stored = (await req("GET", `/contributions?filter[sourceId][eq]=proto`)).json.data;
    expect(stored).toEqual([]);
  });
});

describe("numbers JSON cannot carry", () => {
  it("get a message that says so, not 'got null'", async () => {
    const body = `{"contextId":"${s.contextId}","modelId":"${s.models.Loan}","sourceId":"big","sourceType":"document","data":{"amount":1e309}}`;
    const p = problem(await req("POST", "/contributions", body), 422, "validation_failed");
    expect(p.errors).toEqual([{ path: "data.amount", message: expect.stringMatching(/number JSON cannot carry/) }]);
    expect(p.detail).not.toMatch(/null/);
    const m = problem(await req("POST", "/contexts", '{"metadata":{"n":-1e400}}'), 422, "validation_failed");
    expect(m.errors?.[0].path).toBe("metadata.n");
  });
});
