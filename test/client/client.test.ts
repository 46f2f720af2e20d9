import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpClient, normalizeBaseUrl } from "../../src/client/index.js";
import { DdsError } from "../../src/contract/errors.js";
import { openService } from "../../src/cli/service-factory.js";

/** One request as the fake server saw it. */
interface Seen {
  method: string;
  url: string;
  key?: string;
  auth?: string;
  body: string;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** A tiny HTTP server; `answer` gets the request number (0-based) and may drop the socket. */
async function fake(answer: (n: number, req: IncomingMessage, res: ServerResponse, seen: Seen) => void): Promise<{ base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const entry = { method: req.method!, url: req.url!, key: req.headers["idempotency-key"] as string | undefined, auth: req.headers.authorization, body };
      seen.push(entry);
      answer(seen.length - 1, req, res, entry);
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { base: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`, seen };
}

const json = (res: ServerResponse, status: number, body: unknown, type = "application/json") => {
  res.writeHead(status, { "content-type": type });
  res.end(JSON.stringify(body));
};

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function failure(p: Promise<unknown>): Promise<DdsError> {
  try {
    await p;
  } catch (err) {
    return err as DdsError;
  }
  throw new Error("expected a failure");
}

describe("connection failures", () => {
  it("nothing listening: unavailable, with a hint naming the URL", async () => {
    const base = `http://127.0.0.1:${await freePort()}/v1`;
    const client = createHttpClient({ baseUrl: base, token: "dds_x", backoffMs: 1 });
    const err = await failure(client.listModels());
    expect(err).toBeInstanceOf(DdsError);
    expect(err.code).toBe("unavailable");
    expect(err.message).toBe(`cannot reach ${base}: is ddsctl serve running at ${base}?`);
    await client.close();
  });

  it("an unknown host: unavailable", async () => {
    const client = createHttpClient({ baseUrl: "http://ddsctl-does-not-exist.invalid:8080", token: "dds_x" });
    const err = await failure(client.getModel("x"));
    expect(err.code).toBe("unavailable");
    expect(err.message).toContain("http://ddsctl-does-not-exist.invalid:8080/v1");
    await client.close();
  });
});

describe("timeouts", () => {
  it("a server that never answers is unavailable after timeoutMs", async () => {
    const { base } = await fake(() => undefined);
    const client = createHttpClient({ baseUrl: base, token: "dds_t", timeoutMs: 200 });
    const err = await failure(client.listModels());
    expect(err).toMatchObject({ code: "unavailable", message: `${base} did not answer within 200 ms` });
    await client.close().catch(() => undefined);
  });
});

describe("retries", () => {
  it("retries a write after a dropped connection with the same Idempotency-Key", async () => {
    const { base, seen } = await fake((n, req, res, entry) => {
      if (n === 0) return req.socket.destroy();
      json(res, 201, { contextId: "c1", echo: entry.body });
    });
    const client = createHttpClient({ baseUrl: base, token: "dds_t", backoffMs: 1 });
    const created = await client.createContext({ name: "x" });
    expect(created).toMatchObject({ contextId: "c1", echo: '{"name":"x"}' });
    expect(seen).toHaveLength(2);
    expect(seen[0].key).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1].key).toBe(seen[0].key);
    expect(seen[1].auth).toBe("Bearer dds_t");
    // A second logical call gets a key of its own.
    await client.createContext({ name: "y" });
    expect(seen[2].key).not.toBe(seen[0].key);
    await client.close();
  });

  it("waits when its retry meets the first attempt still running (409 idempotency_in_progress)", async () => {
    const { base, seen } = await fake((n, req, res) => {
      if (n === 0) return req.socket.destroy();
      if (n === 1) return json(res, 409, new DdsError("idempotency_in_progress", "still running").toProblem(), "application/problem+json");
      json(res, 201, { contextId: "c1" });
    });
    const client = createHttpClient({ baseUrl: base, token: "dds_t", backoffMs: 1 });
    expect(await client.createContext({})).toEqual({ contextId: "c1" });
    expect(new Set(seen.map((s) => s.key)).size).toBe(1);
    await client.close();
  });

  it("gives up after its retries and reports the server unavailable; reads carry no key", async () => {
    const { base, seen } = await fake((_n, req) => req.socket.destroy());
    const client = createHttpClient({ baseUrl: base, token: "dds_t", backoffMs: 1, retries: 3 });
    const err = await failure(client.listContexts({ limit: 5 }));
    expect(err.code).toBe("unavailable");
    expect(seen).toHaveLength(4);
    expect(seen[0]).toMatchObject({ method: "GET", url: "/v1/contexts?limit=5", key: undefined });
    await client.close();
  });
});

describe("responses", () => {
  it("a problem body becomes the same DdsError", async () => {
    const original = new DdsError("validation_failed", "data is invalid", [{ path: "data.amount", message: "must be >= 1000" }]);
    const { base } = await fake((_n, _req, res) => json(res, 422, original.toProblem(), "application/problem+json"));
    const client = createHttpClient({ baseUrl: base, token: "dds_t" });
    const err = await failure(client.createContribution({} as never));
    expect(err).toBeInstanceOf(DdsError);
    expect(err.toProblem()).toEqual(original.toProblem());
    await client.close();
  });

  it("a non-problem gateway error is unavailable (once retries are spent); 204 resolves to undefined", async () => {
    const { base } = await fake((n, _req, res) => {
      if (n === 0) {
        res.writeHead(502, { "content-type": "text/html" });
        return res.end("<h1>Bad Gateway</h1>");
      }
      res.writeHead(204);
      res.end();
    });
    const client = createHttpClient({ baseUrl: base, token: "dds_t", retries: 0 });
    expect((await failure(client.getModel("m"))).code).toBe("unavailable");
    expect(await client.deleteModel("m")).toBeUndefined();
    await client.close();
  });

  it("builds paths, queries and bodies from the route table", async () => {
    const { base, seen } = await fake((_n, _req, res) => json(res, 200, {}));
    const client = createHttpClient({ baseUrl: base, token: "dds_t" });
    await client.getRecord("r/1", { include: ["model", "lineage"] });
    await client.listContextEvaluations("c1", { filters: [{ field: "rule.severity", op: "eq", value: "high" }], sort: [{ field: "computedAt", desc: true }] });
    await client.setModelStatus("m1", "active");
    await client.bulkDeleteRecords({ items: [{ recordId: "r1" }] }, { idempotencyKey: "import-file-abc-0" });
    expect(seen.map((s) => `${s.method} ${decodeURIComponent(s.url)}`)).toEqual([
      "GET /v1/records/r/1?include=model,lineage",
      "GET /v1/contexts/c1/evaluations?filter[rule.severity][eq]=high&sort=-computedAt",
      "PUT /v1/models/m1/status/active",
      "DELETE /v1/records/bulk",
    ]);
    expect(seen[0].url).toContain("r%2F1");
    expect(JSON.parse(seen[3].body)).toEqual({ items: [{ recordId: "r1" }] });
    expect(seen[3].key).toBe("import-file-abc-0");
    await client.close();
  });
});

describe("base URL and the service factory", () => {
  it("normalises --remote, appending /v1 when the path is empty", () => {
    expect(normalizeBaseUrl("http://127.0.0.1:8080")).toBe("http://127.0.0.1:8080/v1");
    expect(normalizeBaseUrl("http://127.0.0.1:8080/")).toBe("http://127.0.0.1:8080/v1");
    expect(normalizeBaseUrl("http://127.0.0.1:8080/v1/")).toBe("http://127.0.0.1:8080/v1");
    expect(normalizeBaseUrl("https://dds.example.com/api/v1")).toBe("https://dds.example.com/api/v1");
    expect(() => normalizeBaseUrl("ftp://x")).toThrow(/http/);
    expect(() => normalizeBaseUrl("not a url")).toThrow(/not a URL/);
  });

  it("remote mode without a token is a usage error that says how to pass one", async () => {
    const err = await failure(openService({ mode: "remote", baseUrl: "http://127.0.0.1:1/v1", source: "--remote" }, { env: {} }));
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/--token .*DDS_API_TOKEN/);
    const service = await openService({ mode: "remote", baseUrl: "http://127.0.0.1:1", token: "dds_x", source: "--remote" }, { env: {} });
    expect((await failure(service.listModels())).message).toContain("http://127.0.0.1:1/v1");
    await service.close();
  });
});
