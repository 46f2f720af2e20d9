import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import type { PassEvent } from "../../src/engine/pipeline/worker.js";
import { startServer, type Harness } from "./harness.js";

const open: Harness[] = [];
afterAll(async () => {
  for (const h of open) await h.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sets up an active model and a context with one contribution; returns the context id. */
async function staleContext(h: Harness, token: string): Promise<string> {
  const model = await h.request("POST", "/v1/models", { token, body: { name: "Thing", fields: [{ name: "v", type: "integer" }] } });
  const modelId = model.json?.modelId ?? (await h.request("GET", "/v1/models?filter[name][eq]=Thing", { token })).json.models[0].modelId;
  await h.request("PUT", `/v1/models/${modelId}/status/active`, { token });
  const contextId = (await h.request("POST", "/v1/contexts", { token, body: {} })).json.contextId;
  const c = await h.request("POST", "/v1/contributions", { token, body: { contextId, modelId, sourceId: "s", sourceType: "system", data: { v: 1 } } });
  expect(c.status, c.text).toBe(201);
  return contextId;
}

async function waitResolved(h: Harness, token: string, contextId: string, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if ((await h.request("GET", `/v1/contexts/${contextId}`, { token })).json.freshness === "resolved") return Date.now() - started;
    await sleep(10);
  }
  throw new Error(`context ${contextId} not resolved within ${timeoutMs} ms`);
}

describe("the in-process pipeline worker", () => {
  it("resolves stale contexts of every workspace on its own, and reports each pass", async () => {
    const passes: PassEvent[] = [];
    const h = await startServer({ worker: { pipeline: { onPass: async (_tx, e) => void passes.push(e) } } });
    open.push(h);
    const a = await h.token("admin", "a");
    const b = await h.token("admin", "b");
    const ca = await staleContext(h, a);
    const cb = await staleContext(h, b);
    await waitResolved(h, a, ca);
    await waitResolved(h, b, cb);
    expect(passes.map((p) => p.workspace).sort()).toEqual(expect.arrayContaining(["a", "b"]));
  });

  it("waits for writes to settle, but a continuous stream of writes cannot starve it", async () => {
    // Writes come every ~20 ms, far inside settleMs: only maxDeferMs can let the pass run.
    const h = await startServer({ worker: { settleMs: 5000, maxDeferMs: 300, idleMs: 10 } });
    open.push(h);
    const token = await h.token("admin");
    const contextId = await staleContext(h, token);
    expect((await h.request("GET", `/v1/contexts/${contextId}`, { token })).json.freshness).toBe("stale");
    let writing = true;
    const writer = (async () => {
      while (writing) {
        await h.request("POST", "/v1/contexts", { token, body: {} });
        await sleep(20);
      }
    })();
    // settleMs alone would hold the pass back for as long as writes keep coming; the pass
    // must run while they still do (maxDeferMs). No bound on durations: the machine may be busy.
    await waitResolved(h, token, contextId, 60_000);
    const stillWriting = writing;
    writing = false;
    await writer;
    expect(stillWriting).toBe(true);
  });

  it("keeps going after a failing pass", async () => {
    const logged: string[] = [];
    const h = await startServer({ worker: { idleMs: 10, errorBackoffMs: 20 }, log: (line) => logged.push(line) });
    open.push(h);
    const token = await h.token("admin");
    // Every pass commit records what it covered on its context (a new record is written
    // resolved, so the pass may have no record to write).
    h.store.raw.exec("CREATE TRIGGER stuck BEFORE UPDATE OF pass_id ON contexts BEGIN SELECT RAISE(ABORT, 'stuck'); END;");
    const contextId = await staleContext(h, token);
    // Wait for the failing pass to be reported, however long a busy machine takes.
    for (let i = 0; i < 6000 && logged.length === 0; i++) await sleep(10);
    expect((await h.request("GET", `/v1/contexts/${contextId}`, { token })).json.freshness).not.toBe("resolved");
    expect(JSON.parse(logged[0])).toMatchObject({ event: "pipeline_error", error: "stuck" });
    h.store.raw.exec("DROP TRIGGER stuck");
    await waitResolved(h, token, contextId);
  });

  it("delivers webhook events of the passes it runs", async () => {
    const received: { type: string; data: { contextId?: string } }[] = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        received.push(JSON.parse(body));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    try {
      const h = await startServer({ worker: { idleMs: 10, settleMs: 10 }, webhooks: {} });
      open.push(h);
      const token = await h.token("admin");
      const hook = await h.request("POST", "/v1/webhooks", {
        token,
        body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ["context.resolved"] },
      });
      expect(hook.status, hook.text).toBe(201);
      const contextId = await staleContext(h, token);
      await waitResolved(h, token, contextId);
      for (let i = 0; i < 100 && !received.some((e) => e.data.contextId === contextId); i++) await sleep(20);
      expect(received.find((e) => e.data.contextId === contextId)?.type).toBe("context.resolved");
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });
});
