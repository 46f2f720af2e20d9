import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LocalEngine } from "../../src/engine/local-engine.js";
import { tempDb, rawOf } from "./support.js";
import { uuidBytes } from "../../src/engine/store/values.js";

async function failure(p: Promise<unknown>): Promise<{ status: number; code: string; errors?: { path: string }[] }> {
  try {
    await p;
  } catch (err) {
    return err as { status: number; code: string };
  }
  throw new Error("expected the call to fail");
}

describe("webhook subscriptions", () => {
  let db: ReturnType<typeof tempDb>;
  let s: LocalEngine;
  beforeEach(() => {
    db = tempDb();
    s = db.open();
  });
  afterEach(() => db.cleanup());

  it("creates a webhook and shows a Standard Webhooks secret exactly once", async () => {
    const created = await s.createWebhook({ url: "https://example.com/hooks", events: ["context.resolved", "context.resolved", "evaluation.changed"], description: "ops" });
    expect(created).toMatchObject({ url: "https://example.com/hooks", events: ["context.resolved", "evaluation.changed"], description: "ops" });
    expect(created.webhookId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(created.secret!.slice(6), "base64")).toHaveLength(24);
    const got = await s.getWebhook(created.webhookId);
    expect(got).not.toHaveProperty("secret");
    expect(got).toEqual({ ...created, secret: undefined, description: "ops" });
    expect(got).toMatchObject({ status: "enabled", disabledReason: null, disabledAt: null, failingSince: null });
    const listed = await s.listWebhooks();
    expect(listed.data[0]).not.toHaveProperty("secret");
    // ids are compared lowercase, as everywhere else
    expect((await s.getWebhook(created.webhookId.toUpperCase())).webhookId).toBe(created.webhookId);
  });

  it("defaults the description to the empty string", async () => {
    const created = await s.createWebhook({ url: "http://127.0.0.1:9/x", events: ["context.stale"] });
    expect(created.description).toBe("");
  });

  it("rejects bodies that are not of the documented shape with 400", async () => {
    for (const body of [
      { url: "ftp://example.com/x", events: ["context.stale"] },
      { url: "javascript:alert(1)", events: ["context.stale"] },
      { url: "not a url", events: ["context.stale"] },
      { url: "https://example.com", events: [] },
      { url: "https://example.com", events: ["context.exploded"] },
      { url: "https://example.com", events: ["context.stale"], secret: "mine" },
      { events: ["context.stale"] },
    ]) {
      const err = await failure(s.createWebhook(body as never));
      expect(err.status, JSON.stringify(body)).toBe(400);
      expect(err.code).toBe("invalid_request");
    }
    const ftp = await failure(s.createWebhook({ url: "ftp://example.com/x", events: ["context.stale"] }));
    expect(ftp.errors?.[0].path).toBe("url");
    expect((await s.listWebhooks()).data).toHaveLength(0);
  });

  it("lists with cursor pagination and the documented filters", async () => {
    for (let i = 0; i < 5; i++) await s.createWebhook({ url: `https://example.com/h${i}`, events: ["context.stale"] });
    const first = await s.listWebhooks({ limit: 2 });
    expect(first.data.map((w) => w.url)).toEqual(["https://example.com/h0", "https://example.com/h1"]);
    expect(first.hasNextPage).toBe(true);
    const rest = await s.listWebhooks({ limit: 10, cursor: first.nextCursor! });
    expect(rest.data.map((w) => w.url)).toEqual(["https://example.com/h2", "https://example.com/h3", "https://example.com/h4"]);
    expect(rest).toMatchObject({ nextCursor: null, hasNextPage: false });
    const filtered = await s.listWebhooks({ filters: [{ field: "url", op: "contains", value: "h3" }] });
    expect(filtered.data).toHaveLength(1);
    expect((await failure(s.listWebhooks({ filters: [{ field: "secret", op: "eq", value: "x" }] }))).status).toBe(400);
  });

  it("soft-deletes: later reads are 404, and so are unknown ids", async () => {
    const w = await s.createWebhook({ url: "https://example.com/x", events: ["context.stale"] });
    await expect(s.deleteWebhook(w.webhookId)).resolves.toBeUndefined();
    for (const p of [s.getWebhook(w.webhookId), s.deleteWebhook(w.webhookId), s.listWebhookDeliveries(w.webhookId), s.getWebhook("0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10")]) {
      expect(await failure(p)).toMatchObject({ status: 404, code: "not_found" });
    }
    expect((await s.listWebhooks()).data).toHaveLength(0);
    // kept for audit
    expect(rawOf(s).prepare("SELECT deleted_at FROM webhooks WHERE uuid = ?").pluck().get(uuidBytes(w.webhookId))).not.toBeNull();
  });

  it("never shows a webhook of another workspace", async () => {
    const other = db.open({ workspace: "other" });
    const theirs = await other.createWebhook({ url: "https://example.com/theirs", events: ["context.stale"] });
    expect((await s.listWebhooks()).data).toHaveLength(0);
    for (const p of [s.getWebhook(theirs.webhookId), s.deleteWebhook(theirs.webhookId), s.listWebhookDeliveries(theirs.webhookId)]) {
      expect(await failure(p)).toMatchObject({ status: 404 });
    }
    expect((await other.getWebhook(theirs.webhookId)).url).toBe("https://example.com/theirs");
  });

  it("lists deliveries in the WebhookDelivery shape, paginated and filterable", async () => {
    const w = await s.createWebhook({ url: "https://example.com/x", events: ["context.status_changed"] });
    const c = await s.createContext({ name: "case" });
    await s.setContextStatus(c.contextId, "completed");
    await s.setContextStatus(c.contextId, "active");
    await s.setContextStatus(c.contextId, "completed");
    const page = await s.listWebhookDeliveries(w.webhookId, { limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.hasNextPage).toBe(true);
    expect(page.data[0]).toEqual({
      deliveryId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      webhookId: w.webhookId,
      messageId: expect.stringMatching(/^msg_/),
      eventType: "context.status_changed",
      status: "pending",
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      nextAttemptAt: expect.stringMatching(/Z$/),
      createdAt: expect.stringMatching(/Z$/),
      deliveredAt: null,
    });
    const next = await s.listWebhookDeliveries(w.webhookId, { cursor: page.nextCursor! });
    expect(next.data).toHaveLength(1);
    for (const status of ["succeeded", "failed"]) {
      const none = await s.listWebhookDeliveries(w.webhookId, { filters: [{ field: "status", op: "eq", value: status }] });
      expect(none.data, status).toHaveLength(0);
    }
    expect((await s.listWebhookDeliveries(w.webhookId, { filters: [{ field: "status", op: "eq", value: "pending" }] })).data).toHaveLength(3);
    // `succeeded` finds what is stored as `delivered`; `delivered` itself is not the API's word.
    rawOf(s).prepare("UPDATE webhook_deliveries SET status = 'delivered' WHERE uuid = (SELECT MIN(uuid) FROM webhook_deliveries)").run();
    const ok = await s.listWebhookDeliveries(w.webhookId, { filters: [{ field: "status", op: "in", value: "succeeded,failed" }] });
    expect(ok.data.map((x) => x.status)).toEqual(["succeeded"]);
    await expect(s.listWebhookDeliveries(w.webhookId, { filters: [{ field: "status", op: "eq", value: "delivered" }] })).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining('("delivered" is called "succeeded" now)'),
    });
  });

  it("fails a deleted webhook's pending deliveries so nothing is sent for it", async () => {
    const w = await s.createWebhook({ url: "https://example.com/x", events: ["context.status_changed"] });
    const c = await s.createContext({});
    await s.setContextStatus(c.contextId, "completed");
    await s.deleteWebhook(w.webhookId);
    const row = rawOf(s).prepare("SELECT status, last_error AS lastError FROM webhook_deliveries").get();
    expect(row).toEqual({ status: "failed", lastError: "webhook deleted" });
  });
});
