import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LocalEngine } from "../../src/engine/local-engine.js";
import { createWebhookDispatcher } from "../../src/engine/webhooks/index.js";
import { uuidBytes } from "../../src/engine/store/values.js";
import { rawOf, startReceiver, tempDb } from "./support.js";

async function failure(p: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { status: number; code: string; message: string };
  }
  throw new Error("expected the call to fail");
}

const DAY = 24 * 3_600_000;

describe("sending deliveries again", () => {
  let db: ReturnType<typeof tempDb>;
  let s: LocalEngine;
  let secret = "";
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let answer = 204;
  let hookId = "";
  let contextId = "";

  beforeEach(async () => {
    db = tempDb();
    s = db.open();
    answer = 204;
    rx = await startReceiver(() => secret, () => answer);
    const hook = await s.createWebhook({ url: rx.url, events: ["context.status_changed"] });
    secret = hook.secret!;
    hookId = hook.webhookId;
    contextId = (await s.createContext({ name: "case" })).contextId;
  });
  afterEach(async () => {
    await rx.close();
    await db.cleanup();
  });

  /** One lifecycle move: one delivery. */
  const move = (to: "completed" | "active") => s.setContextStatus(contextId, to);
  const list = async (status?: string) => (await s.listWebhookDeliveries(hookId, status ? { filters: [{ field: "status", op: "eq", value: status }] } : {})).data;

  it("redeliver sends a succeeded delivery again with the same webhook-id, on a fresh schedule", async () => {
    await move("completed");
    const dispatcher = createWebhookDispatcher(s.ctx.store);
    expect(await dispatcher.tick()).toMatchObject({ delivered: 1 });
    const [done] = await list();
    expect(done).toMatchObject({ status: "succeeded", attempts: 1, messageId: rx.received[0].id });
    const again = await s.redeliverWebhookDelivery(hookId, done.deliveryId);
    expect(again).toMatchObject({ deliveryId: done.deliveryId, messageId: done.messageId, status: "pending", attempts: 0, deliveredAt: null, nextAttemptAt: expect.stringMatching(/Z$/) });
    expect(await dispatcher.tick()).toMatchObject({ delivered: 1 });
    expect(rx.received).toHaveLength(2);
    expect(rx.received.every((r) => r.verified)).toBe(true);
    expect(rx.received[1].id).toBe(rx.received[0].id);
    expect(rx.received[1].body).toBe(rx.received[0].body);
    expect((await list())[0]).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("redelivering a pending delivery leaves it as it is: it is sent once", async () => {
    await move("completed");
    const [pending] = await list();
    for (let i = 0; i < 3; i++) expect(await s.redeliverWebhookDelivery(hookId, pending.deliveryId.toUpperCase())).toEqual(pending);
    expect(await list()).toEqual([pending]);
    expect(await createWebhookDispatcher(s.ctx.store).tick()).toMatchObject({ claimed: 1, delivered: 1 });
    expect(rx.received).toHaveLength(1);
  });

  it("recover sends every failed delivery created in [since, until) again, each once, with its webhook-id", async () => {
    answer = 500;
    // No retries: one failed attempt and the delivery is failed.
    const dispatcher = createWebhookDispatcher(s.ctx.store, { retryDelaysMs: [] });
    for (const to of ["completed", "active", "completed", "active"] as const) await move(to);
    expect(await dispatcher.tick()).toMatchObject({ claimed: 4, failed: 4 });
    const failed = await list("failed");
    expect(failed).toHaveLength(4);
    // Spread the deliveries over four days: recover picks them by when they were created.
    const days = ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"];
    // Raw SQLite: created_at is epoch ms, and a delivery's API id is its `uuid` (16 bytes).
    const setCreatedAt = rawOf(s).prepare("UPDATE webhook_deliveries SET created_at = ? WHERE uuid = ?");
    failed.forEach((d, i) => expect(setCreatedAt.run(Date.parse(`${days[i]}T12:00:00.000Z`), uuidBytes(d.deliveryId)).changes).toBe(1));
    const firstIds = rx.received.map((r) => r.id);
    answer = 204;
    const result = await s.recoverWebhookDeliveries(hookId, { since: "2026-01-02T00:00:00+02:00", until: "2026-01-04T00:00:00Z" });
    expect(result).toEqual({ webhookId: hookId, since: "2026-01-01T22:00:00.000Z", until: "2026-01-04T00:00:00.000Z", recovered: 2 });
    expect((await list("pending")).map((d) => d.deliveryId)).toEqual([failed[1].deliveryId, failed[2].deliveryId]);
    expect((await list("pending")).every((d) => d.attempts === 0)).toBe(true);
    // Recovering again finds nothing failed in that window: nothing is queued twice.
    expect((await s.recoverWebhookDeliveries(hookId, { since: "2026-01-02T00:00:00Z", until: "2026-01-04T00:00:00Z" })).recovered).toBe(0);
    expect(await dispatcher.tick()).toMatchObject({ claimed: 2, delivered: 2 });
    expect(rx.received.slice(4).map((r) => r.id)).toEqual([firstIds[1], firstIds[2]]);
    expect((await list("succeeded")).map((d) => d.deliveryId)).toEqual([failed[1].deliveryId, failed[2].deliveryId]);
    expect((await s.recoverWebhookDeliveries(hookId, { since: "2000-01-01T00:00:00Z" })).recovered).toBe(2);
  });

  it("names what is missing or malformed: 404 for a delivery of another webhook, 400 for a bad window", async () => {
    await move("completed");
    const [d] = await list();
    const other = await s.createWebhook({ url: rx.url, events: ["context.stale"] });
    expect(await failure(s.redeliverWebhookDelivery(other.webhookId, d.deliveryId))).toMatchObject({ status: 404, code: "not_found" });
    expect(await failure(s.redeliverWebhookDelivery(hookId, "0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10"))).toMatchObject({ status: 404 });
    for (const body of [{}, { since: "yesterday" }, { since: "2026-01-01T00:00:00Z", extra: 1 }, { since: "2026-01-01" }]) {
      expect(await failure(s.recoverWebhookDeliveries(hookId, body as never)), JSON.stringify(body)).toMatchObject({ status: 400, code: "invalid_request" });
    }
  });

  it("a disabled webhook keeps its events as failed deliveries; redeliver and recover wait until it is enabled", async () => {
    await move("completed");
    const disabled = await s.setWebhookStatus(hookId, "disabled");
    expect(disabled).toMatchObject({ status: "disabled", disabledReason: "disabled by request", disabledAt: expect.stringMatching(/Z$/) });
    expect((await s.listWebhooks({ filters: [{ field: "status", op: "eq", value: "disabled" }] })).data.map((w) => w.webhookId)).toEqual([hookId]);
    expect((await s.listWebhooks({ filters: [{ field: "status", op: "eq", value: "enabled" }] })).data).toHaveLength(0);
    await move("active");
    const kept = await list();
    expect(kept.map((d) => [d.status, d.attempts, d.lastError])).toEqual([
      ["failed", 0, "webhook disabled"],
      ["failed", 0, "webhook disabled"],
    ]);
    const dispatcher = createWebhookDispatcher(s.ctx.store);
    expect((await dispatcher.tick()).claimed).toBe(0);
    const refused = await failure(s.redeliverWebhookDelivery(hookId, kept[0].deliveryId));
    expect(refused).toMatchObject({ status: 409, code: "webhook_disabled" });
    expect(refused.message).toContain(`ddsctl webhooks enable ${hookId}`);
    expect(await failure(s.recoverWebhookDeliveries(hookId, { since: "2000-01-01T00:00:00Z" }))).toMatchObject({ status: 409, code: "webhook_disabled" });
    expect(await failure(s.setWebhookStatus(hookId, "disabled"))).toMatchObject({ status: 422, code: "invalid_transition" });
    expect(await failure(s.setWebhookStatus(hookId, "paused"))).toMatchObject({ status: 400 });

    expect(await s.setWebhookStatus(hookId, "Enabled")).toMatchObject({ status: "enabled", disabledReason: null, disabledAt: null, failingSince: null });
    expect((await s.recoverWebhookDeliveries(hookId, { since: kept[0].createdAt })).recovered).toBe(2);
    expect(await dispatcher.tick()).toMatchObject({ delivered: 2 });
    expect(rx.received.map((r) => (r.payload as { data: { to: string } }).data.to)).toEqual(["completed", "active"]);
  });
});

describe("disabling an endpoint that keeps failing (fake clock)", () => {
  let db: ReturnType<typeof tempDb>;
  let s: LocalEngine;
  let clock = 0;
  let answer = 500;
  let hookId = "";
  let contextId = "";
  const fakeFetch: typeof fetch = async () => new Response(null, { status: answer });
  const event = (to: "completed" | "active") => s.setContextStatus(contextId, to);

  beforeEach(async () => {
    db = tempDb();
    s = db.open();
    // Events are due at the real time they happen; the dispatcher's clock runs a minute
    // ahead of it (so they are due at once) and only moves on.
    clock = Date.now() + 60_000;
    answer = 500;
    hookId = (await s.createWebhook({ url: "https://example.com/hook", events: ["context.status_changed"] })).webhookId;
    contextId = (await s.createContext({})).contextId;
  });
  afterEach(() => db.cleanup());

  it("disables it once every attempt failed for disableAfterMs, failing its pending deliveries, with the reason", async () => {
    const d = createWebhookDispatcher(s.ctx.store, { fetch: fakeFetch, now: () => clock, disableAfterMs: 5 * DAY });
    await event("completed");
    const started = clock;
    await d.tick();
    expect(await s.getWebhook(hookId)).toMatchObject({ status: "enabled", failingSince: new Date(started).toISOString() });
    clock += 3 * DAY;
    await event("active");
    expect(await d.tick()).toMatchObject({ claimed: 2, retrying: 2 });
    expect((await s.getWebhook(hookId)).status).toBe("enabled");
    clock = started + 5 * DAY;
    await event("completed");
    await d.tick();
    const hook = await s.getWebhook(hookId);
    expect(hook).toMatchObject({ status: "disabled", disabledAt: new Date(clock).toISOString() });
    expect(hook.disabledReason).toBe(`every attempt failed for 5 days (since ${new Date(started).toISOString()}); last: HTTP 500 Internal Server Error`);
    // Kept, failed, for recover: nothing is dropped, nothing more is sent.
    const all = (await s.listWebhookDeliveries(hookId)).data;
    expect(all).toHaveLength(3);
    expect(all.every((x) => x.status === "failed" && x.lastError === "webhook disabled")).toBe(true);
    clock += DAY;
    expect((await d.tick()).claimed).toBe(0);
  });

  it("a success stops the clock: failures on either side of it do not add up", async () => {
    const d = createWebhookDispatcher(s.ctx.store, { fetch: fakeFetch, now: () => clock, disableAfterMs: 5 * DAY });
    await event("completed");
    await d.tick();
    clock += 4 * DAY;
    answer = 204;
    await d.tick();
    expect((await s.getWebhook(hookId)).failingSince).toBeNull();
    answer = 500;
    await event("active");
    await d.tick();
    clock += 4 * DAY;
    await event("completed");
    await d.tick();
    expect(await s.getWebhook(hookId)).toMatchObject({ status: "enabled", failingSince: new Date(clock - 4 * DAY).toISOString() });
  });

  it("never disables with disableAfterMs 0", async () => {
    const d = createWebhookDispatcher(s.ctx.store, { fetch: fakeFetch, now: () => clock, disableAfterMs: 0 });
    await event("completed");
    await d.tick();
    clock += 365 * DAY;
    await event("active");
    await d.tick();
    expect((await s.getWebhook(hookId)).status).toBe("enabled");
  });

  it("a late result of a claim whose lease ran out cannot overwrite the redelivered row's new claim", async () => {
    const gates: (() => void)[] = [];
    const answers: number[] = [];
    const gated: typeof fetch = async () => {
      const status = answers.shift() ?? 500;
      await new Promise<void>((r) => gates.push(r));
      return new Response(null, { status });
    };
    const row = () => rawOf(s).prepare("SELECT status, attempts, next_attempt_at AS nextAttemptAt, last_status_code AS code FROM webhook_deliveries").get();
    await event("completed");
    const deliveryId = (await s.listWebhookDeliveries(hookId)).data[0].deliveryId;
    const options = { fetch: gated, now: () => clock, leaseMs: 60_000, retryDelaysMs: [] };
    answers.push(500);
    const late = createWebhookDispatcher(s.ctx.store, options).tick(); // attempt 1, then hangs
    await until(() => gates.length === 1);
    clock += 60_001;
    // The lease ran out: another sender takes the row, fails it (no retries left).
    const other = createWebhookDispatcher(s.ctx.store, { ...options, fetch: fakeFetch });
    expect(await other.tick()).toMatchObject({ claimed: 1, failed: 1 });
    await s.redeliverWebhookDelivery(hookId, deliveryId);
    answers.push(204);
    const fresh = createWebhookDispatcher(s.ctx.store, options).tick(); // attempt 1 again, in flight
    await until(() => gates.length === 2);
    const claimed = row();
    expect(claimed).toMatchObject({ status: "pending", attempts: 1 });
    gates[0](); // the late 500 of the first claim: same attempt number, another lease
    await late;
    expect(row()).toEqual(claimed);
    gates[1]();
    await fresh;
    expect(row()).toMatchObject({ status: "delivered", attempts: 1, code: 204 });
  });
});

async function until(check: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met");
    await new Promise((r) => setTimeout(r, 5));
  }
}
