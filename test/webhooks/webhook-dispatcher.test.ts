import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LocalEngine } from "../../src/engine/local-engine.js";
import { createWebhookDispatcher } from "../../src/engine/webhooks/index.js";
import { logDeliveryResults, loggedResults, rawOf, startReceiver, tempDb, until } from "./support.js";

/** Delivery rows of a webhook through the API (what `webhooks deliveries` shows). */
const deliveries = async (s: LocalEngine, hookId: string) => (await s.listWebhookDeliveries(hookId)).data;

describe("webhook dispatcher against a real receiver", () => {
  let db: ReturnType<typeof tempDb>;
  let s: LocalEngine;
  let secret = "";
  beforeEach(() => {
    db = tempDb();
    s = db.open();
  });
  afterEach(() => db.cleanup());

  /** Subscribes `url` to lifecycle moves and makes one happen; returns the webhook id. */
  const subscribeAndMove = async (url: string): Promise<{ hookId: string; contextId: string }> => {
    const hook = await s.createWebhook({ url, events: ["context.status_changed"] });
    secret = hook.secret!;
    const contextId = (await s.createContext({ name: "case" })).contextId;
    await s.setContextStatus(contextId, "completed");
    return { hookId: hook.webhookId, contextId };
  };

  it("POSTs the JSON payload signed per Standard Webhooks and marks it succeeded", async () => {
    const rx = await startReceiver(() => secret);
    try {
      const { hookId, contextId } = await subscribeAndMove(rx.url);
      const dispatcher = createWebhookDispatcher(s.ctx.store);
      expect(await dispatcher.tick()).toEqual({ claimed: 1, delivered: 1, retrying: 0, failed: 0 });
      expect(rx.received).toHaveLength(1);
      const got = rx.received[0];
      expect(got.verified).toBe(true);
      expect(got.id).toMatch(/^msg_/);
      expect(got.payload).toEqual({ type: "context.status_changed", timestamp: expect.any(String), data: { contextId, workspace: "default", from: "active", to: "completed" } });
      const [d] = await deliveries(s, hookId);
      expect(d).toMatchObject({ status: "succeeded", messageId: got.id, attempts: 1, lastStatusCode: 204, lastError: null, nextAttemptAt: null, deliveredAt: expect.stringMatching(/Z$/) });
      // Nothing is due any more.
      expect((await dispatcher.tick()).claimed).toBe(0);
      expect(rx.received).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });

  it("retries a receiver that answered 500 with the same webhook-id until it answers 2xx", async () => {
    let answer = 500;
    const rx = await startReceiver(() => secret, () => answer);
    try {
      const { hookId } = await subscribeAndMove(rx.url);
      const dispatcher = createWebhookDispatcher(s.ctx.store, { retryDelaysMs: [20, 20, 20] });
      expect(await dispatcher.tick()).toMatchObject({ delivered: 0, retrying: 1 });
      let [d] = await deliveries(s, hookId);
      expect(d).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: 500, lastError: "HTTP 500 Internal Server Error" });
      await until(async () => (await dispatcher.tick()).claimed > 0);
      [d] = await deliveries(s, hookId);
      expect(d).toMatchObject({ status: "pending", attempts: 2, lastStatusCode: 500 });
      answer = 200;
      await until(async () => (await dispatcher.tick()).delivered > 0);
      [d] = await deliveries(s, hookId);
      expect(d).toMatchObject({ status: "succeeded", attempts: 3, lastStatusCode: 200, lastError: null });
      expect(rx.received).toHaveLength(3);
      expect(rx.received.every((r) => r.verified)).toBe(true);
      expect(new Set(rx.received.map((r) => r.id)).size).toBe(1);
      expect(new Set(rx.received.map((r) => r.body)).size).toBe(1);
    } finally {
      await rx.close();
    }
  });

  it("retries a receiver that was down (connection refused) once it comes up", async () => {
    const probe = await startReceiver(() => secret);
    const port = probe.port;
    await probe.close();
    const { hookId } = await subscribeAndMove(`http://127.0.0.1:${port}/hooks`);
    const dispatcher = createWebhookDispatcher(s.ctx.store, { retryDelaysMs: [20, 20, 20] });
    expect(await dispatcher.tick()).toMatchObject({ retrying: 1 });
    let [d] = await deliveries(s, hookId);
    expect(d.lastStatusCode).toBeNull();
    expect(d.lastError).toMatch(/ECONNREFUSED/);
    const rx = await startReceiver(() => secret, () => 204, port);
    try {
      await until(async () => (await dispatcher.tick()).delivered > 0);
      [d] = await deliveries(s, hookId);
      expect(d).toMatchObject({ status: "succeeded", attempts: 2, lastStatusCode: 204 });
      expect(rx.received).toHaveLength(1);
      expect(rx.received[0].verified).toBe(true);
    } finally {
      await rx.close();
    }
  });

  it("start() delivers in the background and stop() ends the loop", async () => {
    const rx = await startReceiver(() => secret);
    try {
      const { hookId, contextId } = await subscribeAndMove(rx.url);
      const dispatcher = createWebhookDispatcher(s.ctx.store);
      dispatcher.start();
      dispatcher.start(); // idempotent
      await until(() => rx.received.length === 1);
      await s.setContextStatus(contextId, "active");
      await until(() => rx.received.length === 2);
      await dispatcher.stop();
      await s.setContextStatus(contextId, "completed");
      await new Promise((r) => setTimeout(r, 60));
      expect(rx.received).toHaveLength(2);
      expect((await deliveries(s, hookId)).map((d) => d.status)).toEqual(["succeeded", "succeeded", "pending"]);
    } finally {
      await rx.close();
    }
  });

  it("does not follow redirects: a 3xx is a failed attempt", async () => {
    const rx = await startReceiver(() => secret, () => 307);
    try {
      const { hookId } = await subscribeAndMove(rx.url);
      await createWebhookDispatcher(s.ctx.store).tick();
      expect((await deliveries(s, hookId))[0]).toMatchObject({ status: "pending", lastStatusCode: 307 });
    } finally {
      await rx.close();
    }
  });

  it("start() sleeps until the next due delivery: its timer is set for the stored nextAttemptAt, not a polling tick", async () => {
    const rx = await startReceiver(() => secret, () => 503);
    // An hour between polls: only the timer for the due time can send the retry.
    const dispatcher = createWebhookDispatcher(s.ctx.store, { retryDelaysMs: [60_000], idleMs: 3_600_000 });
    try {
      const { hookId } = await subscribeAndMove(rx.url);
      dispatcher.start();
      await until(async () => (await deliveries(s, hookId))[0].lastStatusCode === 503);
      const [d] = await deliveries(s, hookId);
      expect(d).toMatchObject({ status: "pending", attempts: 1 });
      // About a minute away (60 s ± 10 %), and the timer is set for exactly then.
      expect(Date.parse(d.nextAttemptAt!) - rx.received[0].at).toBeGreaterThan(50_000);
      await until(() => dispatcher.nextWakeAt() === Date.parse(d.nextAttemptAt!));
    } finally {
      await dispatcher.stop();
      await rx.close();
    }
  });

  it("start() sends each retry when it is due, never before its stored nextAttemptAt, with no poll to find it", async () => {
    // Attempt n is answered 500 + n, so the stored status code tells which attempt settled.
    const answers = [501, 502, 204];
    const rx = await startReceiver(() => secret, () => answers[rx.received.length - 1]);
    const dispatcher = createWebhookDispatcher(s.ctx.store, { retryDelaysMs: [300, 300, 300], idleMs: 3_600_000 });
    try {
      logDeliveryResults(rawOf(s));
      const { hookId } = await subscribeAndMove(rx.url);
      dispatcher.start();
      await until(async () => (await deliveries(s, hookId))[0].status === "succeeded");
      expect(rx.received).toHaveLength(3);
      const results = loggedResults(rawOf(s));
      expect(results.map((r) => [r.attempts, r.status, r.lastStatusCode])).toEqual([[1, "pending", 501], [2, "pending", 502], [3, "delivered", 204]]);
      // Each retry came once its stored due time had come, whatever the machine's load.
      expect(rx.received[1].at).toBeGreaterThanOrEqual(results[0].nextAttemptAt!);
      expect(rx.received[2].at).toBeGreaterThanOrEqual(results[1].nextAttemptAt!);
      expect(new Set(rx.received.map((r) => r.id)).size).toBe(1);
    } finally {
      await dispatcher.stop();
      await rx.close();
    }
  });
});
