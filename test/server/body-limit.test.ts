import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../src/contract/schemas/index.js";
import { startServer, type Harness } from "./harness.js";

let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startServer({ worker: false });
  token = await h.token("admin");
});

afterAll(async () => {
  await h?.close();
});

/** A JSON object of about `bytes` bytes. */
const bigBody = (bytes: number) => `{"name":"${"x".repeat(bytes)}"}`;

/** Streams `total` bytes with chunked encoding (no Content-Length); resolves with the status. */
function streamed(path: string, total: number): Promise<{ status: number; body: string; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    const req = httpRequest(`${h.origin}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "transfer-encoding": "chunked" },
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      const sentAtResponse = sent;
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, sent: sentAtResponse }));
    });
    req.on("error", reject);
    const chunk = Buffer.alloc(64 * 1024, "x");
    req.write('{"items":"');
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end('"}');
    };
    pump();
  });
}

describe("body size limits", () => {
  it("a non-bulk body over 10 MB is 413 payload_too_large (by Content-Length)", async () => {
    const res = await h.request("POST", "/v1/contexts", { token, body: bigBody(MAX_BODY_BYTES) });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ status: 413, code: "payload_too_large" });
  });

  it("a bulk body over 10 MB is 400 bulk_limit_exceeded (by Content-Length)", async () => {
    const res = await h.request("POST", "/v1/contributions/bulk", { token, body: bigBody(MAX_BODY_BYTES) });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: "bulk_limit_exceeded" });
  });

  it("a streamed body is refused once it passes the limit, without waiting for the rest", async () => {
    const bulk = await streamed("/v1/contributions/bulk", 64 * 1024 * 1024);
    expect(bulk.status).toBe(400);
    expect(JSON.parse(bulk.body).code).toBe("bulk_limit_exceeded");
    // answered long before the client finished sending
    expect(bulk.sent).toBeLessThan(32 * 1024 * 1024);
    const single = await streamed("/v1/contributions", 64 * 1024 * 1024);
    expect(single.status).toBe(413);
  });

  it("a body just under the limit is read and judged on its content", async () => {
    const res = await h.request("POST", "/v1/contexts", { token, body: bigBody(MAX_BODY_BYTES - 100) });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("invalid_request");
  });

  it("the server keeps serving afterwards", async () => {
    expect((await h.request("GET", "/healthz")).json).toEqual({ status: "ok", database: "reachable" });
  });
});
