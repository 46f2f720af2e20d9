import { afterAll, describe, expect, it } from "vitest";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { createIdempotencyRepo } from "../../src/engine/store/idempotency-repo.js";
import { startServer, type Harness } from "./harness.js";

const open: Harness[] = [];
afterAll(async () => {
  for (const h of open) await h.close().catch(() => undefined);
});

async function server(options: Parameters<typeof startServer>[0] = {}) {
  const h = await startServer({ worker: false, ...options });
  open.push(h);
  return h;
}

const post = (h: Harness, token: string, key: string, body: unknown, path = "/v1/contexts") =>
  h.request("POST", path, { token, body, headers: { "idempotency-key": key } });

describe("Idempotency-Key", () => {
  it("a replay returns the first status, body and Location with Idempotent-Replayed", async () => {
    const h = await server();
    const token = await h.token("write");
    const first = await post(h, token, "k-1", { name: "one" });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await post(h, token, "k-1", { name: "one" });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("location")).toBe(`/v1/contexts/${first.json.contextId}`);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toContain("application/json");
  });

  it("a keyed bulk replays its first answer byte for byte, though its rows changed since", async () => {
    const h = await server();
    const token = await h.token("write");
    const contextId = (await post(h, token, "ctx", { name: "bulk" })).json.contextId;
    const admin = await h.token("admin");
    const model = await h.request("POST", "/v1/models", { token: admin, body: { name: "Note", fields: [{ name: "text", type: "string" }] } });
    await h.request("PUT", `/v1/models/${model.json.modelId}/status/active`, { token: admin });
    const item = (text: unknown) => ({ contextId, modelId: model.json.modelId, sourceId: "s", sourceType: "user", data: { text } });
    const first = await post(h, token, "bulk-1", { items: [item("a"), item(5), item("b")] }, "/v1/contributions/bulk");
    expect(first.json.items.map((i: { status: number }) => i.status)).toEqual([201, 422, 201]);
    await post(h, token, "bulk-2", { items: [item("c")] }, "/v1/contributions/bulk");
    const again = await post(h, token, "bulk-1", { items: [] }, "/v1/contributions/bulk");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
  });

  it("a different body under the same key gets the first response; nothing new is created", async () => {
    const h = await server();
    const token = await h.token("write");
    const first = await post(h, token, "k-2", { name: "first" });
    const second = await post(h, token, "k-2", { name: "second", type: "other" });
    expect(second.json).toEqual(first.json);
    const all = await h.request("GET", "/v1/contexts", { token });
    expect(all.json.data.map((c: { name: string }) => c.name)).toEqual(["first"]);
  });

  it("applies to every write method, errors included (204s and 4xx replay too)", async () => {
    const h = await server();
    const token = await h.token("write");
    const id = (await post(h, token, "c", {})).json.contextId;
    const patch = (key: string, body: unknown) => h.request("PATCH", `/v1/contexts/${id}`, { token, body, headers: { "idempotency-key": key } });
    expect((await patch("p", { name: "a" })).json.name).toBe("a");
    expect((await patch("p", { name: "b" })).json.name).toBe("a");
    const put = (key: string) => h.request("PUT", `/v1/contexts/${id}/status/completed`, { token, headers: { "idempotency-key": key } });
    expect((await put("s")).status).toBe(200);
    const replayed = await put("s");
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect((await put("s2")).status).toBe(422);
    expect((await put("s2")).headers.get("idempotent-replayed")).toBe("true");
    await h.request("PUT", `/v1/contexts/${id}/status/archived`, { token });
    const del = (key: string) => h.request("DELETE", `/v1/contexts/${id}`, { token, headers: { "idempotency-key": key } });
    expect((await del("d")).status).toBe(204);
    const again = await del("d");
    expect(again.status).toBe(204);
    expect(again.text).toBe("");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  it("keys are scoped to the workspace", async () => {
    const h = await server();
    const a = await h.token("write", "a");
    const b = await h.token("write", "b");
    const ra = await post(h, a, "shared", { name: "in-a" });
    const rb = await post(h, b, "shared", { name: "in-b" });
    expect(rb.json.contextId).not.toBe(ra.json.contextId);
    expect(rb.headers.get("idempotent-replayed")).toBeNull();
  });

  it("concurrent duplicates: one request processes, the other gets 409 or the replay", async () => {
    const h = await server();
    const token = await h.token("write");
    for (let round = 0; round < 10; round++) {
      const replies = await Promise.all([post(h, token, `race-${round}`, { name: `r${round}` }), post(h, token, `race-${round}`, { name: `r${round}` })]);
      const statuses = replies.map((r) => r.status).sort();
      expect([[201, 201], [201, 409]]).toContainEqual(statuses);
      const conflict = replies.find((r) => r.status === 409);
      if (conflict) expect(conflict.json.code).toBe("idempotency_in_progress");
    }
    const all = await h.request("GET", "/v1/contexts?limit=500", { token });
    expect(all.json.data).toHaveLength(10);
  });

  it("a key whose first request still runs is 409 idempotency_in_progress; an abandoned one runs again", async () => {
    const h = await server();
    const token = await h.token("write");
    const repo = createIdempotencyRepo(h.store);
    repo.begin("default", "busy", { now: Date.now(), ttlMs: 60_000, abandonMs: 60_000 });
    const busy = await post(h, token, "busy", {});
    expect(busy.status).toBe(409);
    expect(busy.json.code).toBe("idempotency_in_progress");
    // A `running` row from a crashed server, two minutes old: taken over.
    repo.begin("default", "crashed", { now: Date.now() - 120_000, ttlMs: 86_400_000, abandonMs: 60_000 });
    expect((await post(h, token, "crashed", {})).status).toBe(201);
  });

  it("a 5xx is not cached: the retry runs again", async () => {
    const h = await server();
    const token = await h.token("write");
    h.store.raw.exec("CREATE TRIGGER boom BEFORE INSERT ON contexts BEGIN SELECT RAISE(ABORT, 'boom'); END;");
    expect((await post(h, token, "k-5xx", { name: "x" })).status).toBe(500);
    h.store.raw.exec("DROP TRIGGER boom");
    const retry = await post(h, token, "k-5xx", { name: "x" });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
  });

  it("survives a server restart on the same database", async () => {
    const h = await server();
    const token = await h.token("write");
    const first = await post(h, token, "durable", { name: "before" });
    await h.close(true);
    const again = await server({ dbPath: h.dbPath });
    const replay = await post(again, token, "durable", { name: "after" });
    expect(replay.status).toBe(201);
    expect(replay.json).toEqual(first.json);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  it("after the retention the key is new; expired keys are purged", async () => {
    const h = await server({ idempotency: { ttlMs: 150, purgeEveryMs: 50 } });
    const token = await h.token("write");
    const first = await post(h, token, "short", { name: "one" });
    await new Promise((r) => setTimeout(r, 300));
    const second = await post(h, token, "short", { name: "two" });
    expect(second.status).toBe(201);
    expect(second.json.contextId).not.toBe(first.json.contextId);
    // The purge runs on a timer: wait for it (a busy machine may delay it), but it must come.
    const count = () => h.store.raw.prepare("SELECT count(*) FROM idempotency_keys").pluck().get();
    for (let i = 0; i < 3000 && count() !== 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(count()).toBe(0);
  });

  it("bulk writes are exactly once: the engine records the key in the batch's own transaction", async () => {
    const h = await server();
    const token = await h.token("write");
    const ctx = (await post(h, token, "ctx", {})).json.contextId;
    // What a server that died after committing the batch (before storing the HTTP
    // response) leaves behind: the engine's own record of the keyed batch.
    const engine = createLocalEngine({ db: h.store, workspace: "default" });
    const committed = await engine.bulkDeleteRecords({ items: [{ recordId: ctx }] }, { idempotencyKey: "batch-1" });
    const retry = await h.request("DELETE", "/v1/records/bulk", { token, body: { items: [{ recordId: ctx }] }, headers: { "idempotency-key": "batch-1" } });
    expect(retry.status).toBe(200);
    expect(retry.json).toEqual(committed);
    expect(retry.headers.get("content-type")).toContain("application/json");
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    // Through HTTP alone: the second request replays the first batch.
    const item = { recordId: "01900000-0000-7000-8000-000000000000", data: {} };
    const first = await h.request("PATCH", "/v1/records/bulk", { token, body: { items: [item] }, headers: { "idempotency-key": "batch-2" } });
    const second = await h.request("PATCH", "/v1/records/bulk", { token, body: { items: [item, item] }, headers: { "idempotency-key": "batch-2" } });
    expect(second.json).toEqual(first.json);
  });

  it("rejects an overlong key", async () => {
    const h = await server();
    const token = await h.token("write");
    expect((await post(h, token, "x".repeat(256), {})).status).toBe(400);
  });
});
