import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpClient, type RetryNotice } from "../../src/client/index.js";
import { ddsctl, sandbox, type Sandbox } from "../helpers/cli.js";
import { spawnServe, type ServeProcess } from "../helpers/serve-process.js";

/**
 * The remote client against a real `ddsctl serve` behind a small gate, a node:http proxy
 * that answers the first requests it is told to with 503/429 and Retry-After (as a node
 * restarting or a load balancer failing over would), then forwards to the server. What is
 * asserted is what the client asked for (retries, keys, the wait Retry-After requested),
 * never how long anything took.
 */

let box: Sandbox;
let node: ServeProcess;
let token: string;
let gate: Server;
let gateBase: string;

/** One request as the gate saw it. */
interface Seen {
  method: string;
  url: string;
  key?: string;
  refused: boolean;
}
const seen: Seen[] = [];
/** How the gate refuses the next requests that match (consumed one by one). */
let refusals: { match: (req: IncomingMessage) => boolean; status: number; retryAfter: () => string }[] = [];

function forward(req: IncomingMessage, res: ServerResponse, body: Buffer) {
  const target = new URL(node.url);
  const out = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.end(body);
}

beforeAll(async () => {
  box = sandbox();
  const created = await ddsctl(box, ["tokens", "create", "--scope", "admin", "--workspace", "default", "--json", "--local", join(box.dir, "serve.db")]);
  expect(created.exitCode, created.stderr).toBe(0);
  token = created.json().token;
  node = await spawnServe(box, ["--quiet", "--local", join(box.dir, "serve.db")]);
  gate = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const i = refusals.findIndex((r) => r.match(req));
      seen.push({ method: req.method!, url: req.url!, key: req.headers["idempotency-key"] as string | undefined, refused: i >= 0 });
      if (i < 0) return forward(req, res, Buffer.concat(chunks));
      const [refusal] = refusals.splice(i, 1);
      const problem = { type: "https://ddsctl.dev/problems/unavailable", title: "Service Unavailable", status: refusal.status, detail: "restarting", code: "unavailable" };
      res.writeHead(refusal.status, { "content-type": "application/problem+json", "retry-after": refusal.retryAfter() });
      res.end(JSON.stringify(problem));
    });
  });
  await new Promise<void>((r) => gate.listen(0, "127.0.0.1", r));
  gateBase = `http://127.0.0.1:${(gate.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  gate?.closeAllConnections();
  await new Promise((r) => gate?.close(r) ?? r(undefined));
  await node?.stop();
  box?.cleanup();
});

const isWrite = (path: string) => (req: IncomingMessage) => req.method === "POST" && req.url === `/v1${path}`;

describe("the remote client retries 429, 502, 503 and 504", () => {
  it("a write refused twice with 503 and Retry-After: 1 is sent again with the same key, after the wait asked for, and runs once", async () => {
    seen.length = 0;
    refusals = [0, 1].map(() => ({ match: isWrite("/contexts"), status: 503, retryAfter: () => "1" }));
    const notices: RetryNotice[] = [];
    const client = createHttpClient({ baseUrl: gateBase, token, onRetry: (n) => notices.push(n) });
    const context = await client.createContext({ name: "retried-case" });
    expect(context).toMatchObject({ name: "retried-case" });
    const posts = seen.filter((s) => s.method === "POST");
    expect(posts.map((s) => s.refused)).toEqual([true, true, false]);
    expect(new Set(posts.map((s) => s.key)).size).toBe(1);
    expect(posts[0].key).toMatch(/^[0-9a-f-]{36}$/);
    expect(notices).toHaveLength(2);
    for (const [i, n] of notices.entries()) {
      expect(n).toMatchObject({ method: "POST", status: 503, attempt: i + 1, retryAfterMs: 1000, idempotencyKey: posts[0].key });
      // Retry-After is honoured: at least what the server asked, plus at most 10 % jitter.
      expect(n.waitMs).toBeGreaterThanOrEqual(1000);
      expect(n.waitMs).toBeLessThanOrEqual(1100);
    }
    const named = await client.listContexts({ filters: [{ field: "name", op: "eq", value: "retried-case" }] });
    expect(named.data).toHaveLength(1);
    await client.close();
  });

  it("a read refused with 429 and an HTTP-date Retry-After waits until that date", async () => {
    seen.length = 0;
    refusals = [{ match: (req) => req.method === "GET", status: 429, retryAfter: () => new Date(Date.now() + 2000).toUTCString() }];
    const notices: RetryNotice[] = [];
    const client = createHttpClient({ baseUrl: gateBase, token, onRetry: (n) => notices.push(n) });
    const page = await client.listContexts({ limit: 5 });
    expect(page.data.length).toBeGreaterThan(0);
    expect(seen.map((s) => s.refused)).toEqual([true, false]);
    expect(seen[0].key).toBeUndefined();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ method: "GET", status: 429 });
    // An HTTP date has whole seconds: the wait asked for is at most 2 s from when it was written.
    expect(notices[0].retryAfterMs).toBeGreaterThanOrEqual(0);
    expect(notices[0].retryAfterMs).toBeLessThanOrEqual(2000);
    expect(notices[0].waitMs).toBeGreaterThanOrEqual(notices[0].retryAfterMs!);
    await client.close();
  });

  it("stops within its time budget and reports the server's last answer", async () => {
    seen.length = 0;
    refusals = [0, 1, 2, 3].map(() => ({ match: isWrite("/contexts"), status: 503, retryAfter: () => "1" }));
    const notices: RetryNotice[] = [];
    const client = createHttpClient({ baseUrl: gateBase, token, retryForMs: 1500, onRetry: (n) => notices.push(n) });
    const err = await client.createContext({ name: "never" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "unavailable", message: "restarting" });
    // One retry fits in 1.5 s; a second (another second at least) would not, so none is made.
    expect(notices).toHaveLength(1);
    expect(seen.filter((s) => s.method === "POST")).toHaveLength(2);
    refusals = [];
    await client.close();
  });

  it("a remote import rides out a 503 on a batch: every line stored once", async () => {
    seen.length = 0;
    const model = {
      name: "RetryLoan",
      identity: ["loanId"],
      fields: [
        { name: "loanId", type: "string", required: true },
        { name: "amount", type: "number" },
      ],
    };
    writeFileSync(join(box.dir, "model.json"), JSON.stringify(model));
    const env = { DDS_BASE_URL: gateBase, DDS_API_TOKEN: token, DDS_DB: "" };
    const remote = { ...box, env: { ...box.env, ...env } };
    expect((await ddsctl(remote, ["models", "create", "-f", "model.json"])).exitCode).toBe(0);
    expect((await ddsctl(remote, ["models", "status", "RetryLoan", "active"])).exitCode).toBe(0);
    const lines = Array.from({ length: 150 }, (_, i) =>
      JSON.stringify({ contextRef: `retry-import-${i % 3}`, modelName: "RetryLoan", sourceId: `line-${i}`, sourceType: "document", data: { loanId: `L${i}`, amount: i } }),
    );
    writeFileSync(join(box.dir, "evidence.ndjson"), `${lines.join("\n")}\n`);
    refusals = [0, 1].map(() => ({ match: isWrite("/contributions/bulk"), status: 503, retryAfter: () => "1" }));
    const r = await ddsctl(remote, ["import", "contributions", "evidence.ndjson", "--create-contexts", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ lines: 150, created: 150, failed: 0 });
    // The CLI says what it waits for, on stderr.
    expect(r.stderr).toMatch(/the server answered 503 to POST \/v1\/contributions\/bulk; retrying in 1\.\d s \(retry 1\)/);
    const bulks = seen.filter((s) => s.url === "/v1/contributions/bulk");
    expect(bulks.filter((s) => s.refused)).toHaveLength(2);
    // Each refused batch came back with its own key.
    for (const refused of bulks.filter((s) => s.refused)) expect(bulks.filter((s) => s.key === refused.key).length).toBeGreaterThanOrEqual(2);
    const client = createHttpClient({ baseUrl: node.url, token });
    const stored = await client.listContributions({ filters: [{ field: "sourceType", op: "eq", value: "document" }], limit: 500 });
    expect(stored.data.filter((c) => c.sourceId.startsWith("line-"))).toHaveLength(150);
    await client.close();
  });
});
