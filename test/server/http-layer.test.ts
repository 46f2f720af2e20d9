import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Harness } from "./harness.js";
import { rawRequest, type RawReply } from "./raw-http.js";

let h: Harness;
let admin: string;
const lines: string[] = [];

beforeAll(async () => {
  h = await startServer({ quiet: false, log: (line) => lines.push(line), worker: false, webhooks: false, timeouts: { headersMs: 400, requestMs: 800, keepAliveMs: 300 } });
  admin = await h.token("admin");
});

afterAll(async () => {
  await h?.close();
});

/** Waits until `check` holds (no fixed sleeps: the machine may be slow). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}

function expectProblem(reply: RawReply, status: number, code: string) {
  expect(reply.status, reply.raw.slice(0, 300)).toBe(status);
  expect(reply.headers["content-type"]).toBe("application/problem+json");
  expect(reply.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  expect(JSON.parse(reply.body)).toMatchObject({ status, code, type: expect.stringMatching(/^https:\/\//), detail: expect.any(String) });
}

const port = () => h.server.port;

describe("what Node's HTTP parser refuses is answered as problem+json", () => {
  const cases: [string, string, number, string][] = [
    ["a request target of *", "GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400, "invalid_request"],
    ["an unknown method", "FOO /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", 400, "invalid_request"],
    ["two Content-Lengths", "POST /v1/contexts HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400, "invalid_request"],
    ["Content-Length with Transfer-Encoding", "POST /v1/contexts HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}", 400, "invalid_request"],
    ["a NUL in a header", "GET /v1/models HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n", 400, "invalid_request"],
    ["a bad HTTP version", "GET /v1/models HTTP/7.1\r\nHost: x\r\n\r\n", 400, "invalid_request"],
    ["headers over 16 KB", `GET /v1/models HTTP/1.1\r\nHost: x\r\nX-A: ${"a".repeat(20_000)}\r\n\r\n`, 431, "header_fields_too_large"],
  ];
  for (const [what, bytes, status, code] of cases) {
    it(what, async () => expectProblem(await rawRequest(port(), bytes), status, code));
  }

  it("an HTTP/1.1 request without Host (Node's own bare 400 otherwise)", async () => {
    const reply = await rawRequest(port(), "GET /healthz HTTP/1.1\r\n\r\n");
    expectProblem(reply, 400, "invalid_request");
    expect(JSON.parse(reply.body).detail).toMatch(/Host/);
    expect(reply.headers.connection).toBe("close");
  });

  it("an HTTP/1.1 request without Host to an API path, with a token", async () => {
    expectProblem(await rawRequest(port(), `GET /v1/models HTTP/1.1\r\nAuthorization: Bearer ${admin}\r\n\r\n`), 400, "invalid_request");
  });

  it("an HTTP/1.0 request needs no Host and is served", async () => {
    const reply = await rawRequest(port(), "GET /healthz HTTP/1.0\r\n\r\n");
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ status: "ok" });
  });

  it("an Expect other than 100-continue (Node's own bare 417 otherwise)", async () => {
    expectProblem(await rawRequest(port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n"), 417, "expectation_failed");
  });

  it("CONNECT (Node closes the socket without a word otherwise)", async () => {
    const reply = await rawRequest(port(), "CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n");
    expectProblem(reply, 405, "method_not_allowed");
    expect(reply.headers.allow).toMatch(/GET/);
  });

  it("a bad chunk size", async () => {
    const bytes = `POST /v1/contexts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`;
    const reply = await rawRequest(port(), bytes);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
  });
});

describe("time-outs", () => {
  it("headers not finished in time: 408 problem, connection closed", async () => {
    expectProblem(await rawRequest(port(), "GET /v1/models HTTP/1.1\r\nHost: x\r\n"), 408, "request_timeout");
  });

  it("a body not finished in time: 408 problem, and the request is logged as aborted, not as a 500", async () => {
    const before = lines.length;
    const reply = await rawRequest(port(), `POST /v1/contexts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`);
    expectProblem(reply, 408, "request_timeout");
    await until(() => lines.slice(before).some((l) => l.includes('"aborted":true')));
    expect(lines.slice(before).filter((l) => /"status":5\d\d/.test(l))).toEqual([]);
  });

  it("an idle keep-alive connection is closed by the server", async () => {
    const socket = connect(port(), "127.0.0.1");
    let received = "";
    socket.on("data", (d) => (received += d.toString()));
    const closed = new Promise<void>((r) => socket.on("close", () => r()));
    socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200/);
  });
});

describe("the log", () => {
  it("a client that goes away mid-body is logged as aborted, never as a 500", async () => {
    const before = lines.length;
    const socket = connect(port(), "127.0.0.1");
    await new Promise<void>((r) => socket.once("connect", () => r()));
    socket.write(`POST /v1/contexts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`);
    // Gone with the body half sent: the server has the headers and is waiting for the rest.
    socket.destroy();
    await until(() => lines.slice(before).some((l) => l.includes('"aborted":true')));
    const line = JSON.parse(lines.slice(before).find((l) => l.includes('"aborted":true'))!);
    expect(line).toMatchObject({ method: "POST", path: "/v1/contexts", aborted: true });
    expect(line.status).toBeUndefined();
  });

  it("under --quiet a 5xx still logs its cause (the access lines stay off)", async () => {
    const quietLines: string[] = [];
    const q = await startServer({ quiet: true, log: (line) => quietLines.push(line), worker: false, webhooks: false });
    const token = await q.token("admin");
    const hook = await q.request("POST", "/v1/webhooks", { token, body: { url: "http://127.0.0.1:9/x", events: ["context.stale"] } });
    q.store.raw.exec("DROP TABLE webhook_deliveries");
    const res = await q.request("GET", `/v1/webhooks/${hook.json.webhookId}/deliveries?limit=5`, { token });
    expect(res.status).toBe(500);
    expect(res.json.detail).not.toMatch(/webhook_deliveries/);
    const logged = quietLines.map((l) => JSON.parse(l));
    expect(logged).toEqual([expect.objectContaining({ status: 500, error: expect.stringMatching(/no such table: webhook_deliveries/), requestId: res.headers.get("x-request-id") })]);
    // A 200 under --quiet logs nothing.
    expect((await q.request("GET", "/healthz")).status).toBe(200);
    expect(quietLines.length).toBe(1);
    await q.close();
  });
});
