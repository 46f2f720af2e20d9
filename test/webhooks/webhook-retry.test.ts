import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LocalEngine } from "../../src/engine/local-engine.js";
import { createWebhookDispatcher, DEFAULT_SCHEDULE, DEFAULT_SCHEDULE_TEXT, maxAttempts, retryDelayMs } from "../../src/engine/webhooks/index.js";
import { tempDb, rawOf } from "./support.js";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");

describe("the retry schedule", () => {
  const fixed = (r: number) => ({ ...DEFAULT_SCHEDULE, random: () => r });
  it("waits 5s, 1m, 5m, 30m, 2h, 5h, 10h, 10h: 9 attempts", () => {
    const waits = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelayMs(n, fixed(0.5)));
    expect(waits).toEqual([5_000, 60_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(retryDelayMs(9, fixed(0.5))).toBeUndefined();
    expect(maxAttempts(DEFAULT_SCHEDULE)).toBe(9);
    expect(DEFAULT_SCHEDULE_TEXT).toBe("5s,1m,5m,30m,2h,5h,10h,10h");
  });
  it("spans more than 24 hours even when every wait is jittered to its shortest", () => {
    const shortest = [1, 2, 3, 4, 5, 6, 7, 8].reduce((sum, n) => sum + retryDelayMs(n, fixed(0))!, 0);
    expect(shortest).toBeGreaterThan(24 * 3_600_000);
    expect(shortest).toBe(Math.round(99_365_000 * 0.9));
  });
  it("moves each wait by at most the jitter fraction, either way", () => {
    expect(retryDelayMs(1, fixed(0))).toBe(4_500);
    expect(retryDelayMs(1, fixed(0.999_999))).toBe(5_500);
    for (let i = 0; i < 50; i++) {
      const d = retryDelayMs(2, { ...DEFAULT_SCHEDULE, random: Math.random })!;
      expect(d).toBeGreaterThanOrEqual(54_000);
      expect(d).toBeLessThanOrEqual(66_000);
    }
  });
});

describe("delivery schedule (fake clock, fake endpoint)", () => {
  let db: ReturnType<typeof tempDb>;
  let s: LocalEngine;
  let clock = T0;
  let calls: { url: string; id: string; timestamp: string }[] = [];
  let answer = 503;
  const fakeFetch: typeof fetch = async (input, init) => {
    const headers = init?.headers as Record<string, string>;
    calls.push({ url: String(input), id: headers["webhook-id"], timestamp: headers["webhook-timestamp"] });
    return new Response(null, { status: answer });
  };
  const row = () =>
    rawOf(s).prepare("SELECT status, attempts, next_attempt_at AS nextAttemptAt, last_status_code AS code FROM webhook_deliveries").get() as {
      status: string;
      attempts: number;
      nextAttemptAt: number | null;
      code: number | null;
    };

  beforeEach(async () => {
    db = tempDb();
    s = db.open();
    clock = T0;
    calls = [];
    answer = 503;
    await s.createWebhook({ url: "https://example.com/hook", events: ["context.status_changed"] });
    const c = await s.createContext({});
    // Rows are stamped with the real clock; pin them to the fake one.
    await s.setContextStatus(c.contextId, "completed");
    rawOf(s).prepare("UPDATE webhook_deliveries SET next_attempt_at = ?").run(T0);
  });
  afterEach(() => db.cleanup());

  it("retries after each wait of the schedule, never early, and fails once it is spent", async () => {
    const d = createWebhookDispatcher(s.ctx.store, { fetch: fakeFetch, now: () => clock, retryDelaysMs: [500, 1000, 2000, 4000], random: () => 0.5 });
    const gaps: number[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      const r = await d.tick();
      expect(r.claimed).toBe(1);
      const after = row();
      expect(after.attempts).toBe(attempt);
      expect(after.code).toBe(503);
      if (attempt < 5) {
        expect(after.status).toBe("pending");
        gaps.push(after.nextAttemptAt! - clock);
        clock = after.nextAttemptAt! - 1;
        expect((await d.tick()).claimed).toBe(0); // one millisecond early: not due
        clock += 1;
      } else {
        expect(r).toMatchObject({ failed: 1 });
        expect(after).toMatchObject({ status: "failed", nextAttemptAt: null });
      }
    }
    expect(gaps).toEqual([500, 1000, 2000, 4000]);
    expect(calls).toHaveLength(5);
    expect(new Set(calls.map((c) => c.id)).size).toBe(1);
    // Every retry is signed afresh with its own timestamp (receivers reject old ones).
    expect(calls.map((c) => Number(c.timestamp))).toEqual([0, 500, 1500, 3500, 7500].map((ms) => Math.floor((T0 + ms) / 1000)));
    clock += 10 * 3_600_000;
    expect((await d.tick()).claimed).toBe(0);
    const api = (await s.listWebhookDeliveries((await s.listWebhooks()).data[0].webhookId)).data[0];
    expect(api).toMatchObject({ status: "failed", attempts: 5, lastStatusCode: 503, lastError: "HTTP 503 Service Unavailable", nextAttemptAt: null });
  });

  it("by default keeps a delivery for 9 attempts over more than a day, each stored wait within 10 % of the schedule's", async () => {
    const d = createWebhookDispatcher(s.ctx.store, { fetch: fakeFetch, now: () => clock });
    const gaps: number[] = [];
    for (;;) {
      await d.tick();
      const after = row();
      if (after.status !== "pending") break;
      gaps.push(after.nextAttemptAt! - clock);
      clock = after.nextAttemptAt!;
    }
    expect(row()).toMatchObject({ status: "failed", attempts: 9 });
    expect(gaps).toHaveLength(8);
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(DEFAULT_SCHEDULE.delaysMs[i] * 0.9);
      expect(gap).toBeLessThanOrEqual(DEFAULT_SCHEDULE.delaysMs[i] * 1.1);
    });
    // Attempts went on for more than 24 hours: an outage of a day loses nothing.
    expect(clock - T0).toBeGreaterThan(24 * 3_600_000);
  });

  it("an outage of 25 hours (the old schedule gave up after about 82 seconds) loses nothing: attempt 9 delivers it", async () => {
    const d = createWebhookDispatcher(s.ctx.store, { fetch: fakeFetch, now: () => clock, random: () => 0.5 });
    const back = T0 + 25 * 3_600_000;
    while (row().status === "pending") {
      answer = clock >= back ? 204 : 503;
      expect((await d.tick()).claimed).toBe(1);
      if (row().status === "pending") clock = row().nextAttemptAt!;
    }
    expect(row()).toMatchObject({ status: "delivered", attempts: 9, code: 204 });
    expect(calls).toHaveLength(9);
    expect(new Set(calls.map((c) => c.id)).size).toBe(1);
    // 5s + 1m + 5m + 30m + 2h + 5h + 10h + 10h after the first attempt.
    expect(clock - T0).toBe(99_365_000);
  });

  it("claims are exclusive across processes, and a crashed sender's claim returns after its lease", async () => {
    const other = db.open(); // a second connection to the same file, as another process would have
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slowFetch: typeof fetch = async (input, init) => {
      await gate;
      return fakeFetch(input, init);
    };
    const a = createWebhookDispatcher(s.ctx.store, { fetch: slowFetch, now: () => clock, leaseMs: 60_000 });
    const b = createWebhookDispatcher(other.ctx.store, { fetch: fakeFetch, now: () => clock, leaseMs: 60_000 });
    const inFlight = a.tick();
    expect(await b.tick()).toMatchObject({ claimed: 0 }); // a holds it
    // a "crashes" (hangs past its lease): after the lease, b takes the row over.
    clock += 60_001;
    answer = 204;
    expect(await b.tick()).toMatchObject({ claimed: 1, delivered: 1 });
    expect(row()).toMatchObject({ status: "delivered", attempts: 2 });
    // a's late result is fenced off by the attempt number: it cannot undo b's delivery.
    answer = 500;
    release();
    await inFlight;
    expect(row()).toMatchObject({ status: "delivered", attempts: 2, code: 204 });
  });

  it("times a silent endpoint out and schedules a retry", async () => {
    const server = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      rawOf(s).prepare("UPDATE webhooks SET url = ?").run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const d = createWebhookDispatcher(s.ctx.store, { now: () => clock, timeoutMs: 100 });
      expect(await d.tick()).toMatchObject({ retrying: 1 });
      const api = (await s.listWebhookDeliveries((await s.listWebhooks()).data[0].webhookId)).data[0];
      expect(api).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: null, lastError: "timed out after 100 ms" });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
