import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerLogger, scrubSecrets } from "../../src/server/server-log.js";
import { startServer, type Harness } from "./harness.js";
import { rawRequest } from "./raw-http.js";

/**
 * `serve --log-format json`: one pino object per request and per event, with the fields an
 * operator filters on, and nothing secret. The plain format keeps its old look.
 */

let h: Harness;
let admin: string;
const lines: string[] = [];
const logged = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  h = await startServer({ quiet: false, logFormat: "json", log: (l) => lines.push(l), worker: false, webhooks: false });
  admin = await h.token("admin");
});

afterAll(async () => {
  await h?.close();
});

describe("--log-format json", () => {
  it("writes one object per request, through the read lane and the app alike, with request id, route template, status, duration and workspace", async () => {
    const created = await h.request("POST", "/v1/contexts", { token: admin, body: { name: "log-case" }, headers: { "x-request-id": "log-create-1" } });
    expect(created.status).toBe(201);
    const id = created.json.contextId as string;
    expect((await h.request("GET", `/v1/contexts/${id}`, { token: admin, headers: { "x-request-id": "log-read-1" } })).status).toBe(200);
    expect((await h.request("GET", `/v1/contexts/${id}?include=summary`, { token: admin, headers: { "x-request-id": "log-read-2" } })).status).toBe(200);
    const byId = new Map(logged().map((l) => [l.requestId, l]));
    const common = { level: "info", msg: "request", pid: process.pid, hostname: expect.any(String), time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), durationMs: expect.any(Number), workspace: "default" };
    expect(byId.get("log-create-1")).toEqual({ ...common, requestId: "log-create-1", method: "POST", path: "/v1/contexts", route: "/v1/contexts", status: 201 });
    // The read lane's answer (a plain GET) and the app's (with a query) log the same fields.
    expect(byId.get("log-read-1")).toEqual({ ...common, requestId: "log-read-1", method: "GET", path: `/v1/contexts/${id}`, route: "/v1/contexts/{contextId}", status: 200 });
    expect(byId.get("log-read-2")).toEqual({ ...common, requestId: "log-read-2", method: "GET", path: `/v1/contexts/${id}`, route: "/v1/contexts/{contextId}", status: 200 });
  });

  it("logs refusals too, each line a JSON object, and no line holds a token or an Authorization header", async () => {
    await h.request("GET", "/v1/models", { token: "dds_not_a_real_token_but_secret" });
    await h.request("GET", "/v1/nowhere", { token: admin });
    await rawRequest(h.server.port, "GET /healthz HTTP/1.1\r\n\r\n");
    const all = logged();
    expect(all.find((l) => l.status === 401)).toMatchObject({ method: "GET", route: "/v1/models", requestId: expect.any(String) });
    expect(all.find((l) => l.path === "/v1/nowhere")).toMatchObject({ status: 404, route: null });
    expect(all.find((l) => l.event === "client_error")).toMatchObject({ level: "info", status: 400, code: "invalid_request" });
    const text = lines.join("\n");
    expect(text).not.toContain(admin);
    expect(text).not.toContain("dds_not_a_real_token_but_secret");
    expect(text.toLowerCase()).not.toContain("authorization");
    expect(text.toLowerCase()).not.toContain("bearer");
  });
});

describe("events and secrets", () => {
  it("an event is one object with its name as msg, its fields, and URL passwords and tokens scrubbed", () => {
    const out: string[] = [];
    const logger = createServerLogger({ format: "json", write: (l) => out.push(l) });
    logger.event("db_unreachable", { location: "postgres://dds:***@db/dds", error: "connect to postgres://dds:hunter2@db:5432/dds failed; sent Bearer dds_abc123" }, "warn");
    expect(out).toHaveLength(1);
    expect(JSON.parse(out[0])).toMatchObject({ level: "warn", event: "db_unreachable", msg: "db_unreachable", error: "connect to postgres://dds:***@db:5432/dds failed; sent Bearer ***" });
    expect(out[0]).not.toContain("hunter2");
    // A secret-looking key that slips into an event is redacted by pino.
    logger.event("oops", { token: "dds_secret", authorization: "Bearer x" });
    expect(JSON.parse(out[1])).toMatchObject({ token: "[redacted]", authorization: "[redacted]" });
  });

  it("scrubSecrets leaves text without secrets alone", () => {
    expect(scrubSecrets("database postgres://dds@db/dds is down")).toBe("database postgres://dds@db/dds is down");
    expect(scrubSecrets("https://user:pa55@example.test/x")).toBe("https://user:***@example.test/x");
  });
});

describe("--log-format plain (the default)", () => {
  it("keeps the access line it always had: the same keys in the same order", async () => {
    const plain: string[] = [];
    const p = await startServer({ quiet: false, log: (l) => plain.push(l), worker: false, webhooks: false });
    try {
      const token = await p.token("read");
      await p.request("GET", "/v1/models", { token, headers: { "x-request-id": "plain-1" } });
      const line = JSON.parse(plain.find((l) => l.includes('"plain-1"'))!);
      expect(Object.keys(line)).toEqual(["time", "method", "path", "status", "ms", "workspace", "requestId"]);
      expect(line).toMatchObject({ method: "GET", path: "/v1/models", status: 200, workspace: "default", requestId: "plain-1" });
    } finally {
      await p.close();
    }
  });
});
