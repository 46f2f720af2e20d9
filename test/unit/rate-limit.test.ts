import { describe, expect, it } from "vitest";
import { DdsError } from "../../src/contract/errors.js";
import { formatRateSpec, parseRateSpec, requestCost } from "../../src/contract/rate-limit.js";
import type { LeaseAsk, LeaseGrant } from "../../src/engine/index.js";
import { createMemoryLedger, type Ledger } from "../../src/server/rate-limit/ledger.js";
import { createRateLimiter, type RateSubject, type Refusal, type Verdict } from "../../src/server/rate-limit/limiter.js";
import { refusalReporter } from "../../src/server/rate-limit/refusal-log.js";
import { createSharedLedger, SHARE_OF_QUOTA } from "../../src/server/rate-limit/shared-ledger.js";
import type { ServerLogger } from "../../src/server/server-log.js";

// The limiter's arithmetic against an injected clock: no test here waits for anything.

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const subject: RateSubject = { workspace: "acme", tokenId: "t1" };
const limited = (workspace: string | null, token: string | null) => ({
  workspace: workspace === null ? null : parseRateSpec(workspace, "test"),
  token: token === null ? null : parseRateSpec(token, "test"),
});
const sync = (v: Verdict | Promise<Verdict> | undefined): Verdict => {
  if (v === undefined || v instanceof Promise) throw new Error("expected a synchronous verdict");
  return v;
};
/** `"token";r=…` of a RateLimit header, by policy name. */
const remaining = (v: Verdict) => Object.fromEntries([...v.headers.RateLimit.matchAll(/"(\w+)";r=(\d+);t=(\d+)/g)].map((m) => [m[1], Number(m[2])]));

describe("limits as written", () => {
  it("reads <units>/<window> and off; writes them back the one way", () => {
    expect(parseRateSpec("50000/s", "--token-rate")).toEqual({ quota: 50_000, windowSeconds: 1 });
    expect(parseRateSpec("6000/10s", "x")).toEqual({ quota: 6000, windowSeconds: 10 });
    expect(parseRateSpec("600/min", "x")).toEqual({ quota: 600, windowSeconds: 60 });
    expect(parseRateSpec(" 1000 / 1d ", "x")).toEqual({ quota: 1000, windowSeconds: 86_400 });
    expect(parseRateSpec("OFF", "x")).toBeNull();
    expect(parseRateSpec("0", "x")).toBeNull();
    for (const text of ["50000/s", "6000/10s", "600/min", "36000/h", "1000/d", "5/90s"]) expect(formatRateSpec(parseRateSpec(text, "x"))).toBe(text);
    expect(formatRateSpec(null)).toBe("off");
  });

  it("anything else is a usage error naming where it came from", () => {
    for (const text of ["lots", "0/s", "-5/s", "5/0s", "5/2d", "5.5/s", "5/x", "/s", "5"]) {
      let err: unknown;
      try {
        parseRateSpec(text, "DDS_TOKEN_RATE");
      } catch (e) {
        err = e;
      }
      expect(err, text).toBeInstanceOf(DdsError);
      expect((err as DdsError).exitCode, text).toBe(2);
      expect((err as DdsError).message, text).toContain(`DDS_TOKEN_RATE "${text}"`);
    }
  });

  it("costs: a read 1, a write 10, a bulk 10 plus a unit per 4 items rounded up", () => {
    expect(requestCost("GET")).toBe(1);
    for (const m of ["POST", "PATCH", "PUT", "DELETE"]) expect(requestCost(m)).toBe(10);
    expect(requestCost("POST", 100)).toBe(35);
    expect(requestCost("DELETE", 1)).toBe(11);
    expect(requestCost("PATCH", 9)).toBe(13);
  });
});

describe("one node's budgets (memory)", () => {
  it("a burst of the quota, then refill at quota per window: exactly one unit per interval", () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ limits: limited(null, "100/10s"), ledger: createMemoryLedger(clock.now) });
    let passed = 0;
    while (sync(limiter.check(subject, 1)).admitted) passed++;
    expect(passed).toBe(100);
    // 100 per 10 s: a unit per 100 ms. 250 ms pays back two and a half.
    clock.advance(250);
    expect(sync(limiter.check(subject, 1)).admitted).toBe(true);
    expect(sync(limiter.check(subject, 1)).admitted).toBe(true);
    const refused = sync(limiter.check(subject, 1));
    expect(refused.admitted).toBe(false);
    // Half a unit owed: 50 ms, which Retry-After rounds up to a whole second.
    expect(refused.headers["Retry-After"]).toBe("1");
    clock.advance(10_000);
    expect(remaining(sync(limiter.check(subject, 10))).token).toBe(90);
  });

  it("a request pays both budgets or neither: a token over its limit costs its workspace nothing", () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ limits: limited("50/1d", "20/1d"), ledger: createMemoryLedger(clock.now) });
    const other: RateSubject = { workspace: "acme", tokenId: "t2", tokenRate: "off" };
    for (let i = 0; i < 2; i++) expect(sync(limiter.check(subject, 10)).admitted).toBe(true);
    const refused = sync(limiter.check(subject, 10));
    expect(refused.admitted).toBe(false);
    expect(refused.admitted === false && refused.refusal).toMatchObject({ limit: "token", class: "default", cost: 10 });
    expect(remaining(refused)).toEqual({ workspace: 30, token: 0 });
    const byWorkspace = [1, 2, 3, 4].map(() => sync(limiter.check(other, 10)).admitted);
    expect(byWorkspace).toEqual([true, true, true, false]);
  });

  it("a cost above the quota can never pass: said so, with no Retry-After", () => {
    const limiter = createRateLimiter({ limits: limited(null, "30/min"), ledger: createMemoryLedger(manualClock().now) });
    const v = sync(limiter.check(subject, 35));
    expect(v.admitted).toBe(false);
    if (v.admitted) return;
    expect(v.error.message).toContain("can never pass");
    expect(v.error.retryAfter).toBeUndefined();
    expect(v.headers["Retry-After"]).toBeUndefined();
    expect(v.refusal.retryAfter).toBeUndefined();
  });

  it("a workspace's or token's own limit replaces the default (class custom); off turns it off; an unreadable one is the default", () => {
    const limiter = createRateLimiter({ limits: limited("1000/min", "100/min"), ledger: createMemoryLedger(manualClock().now) });
    const own = sync(limiter.check({ ...subject, tokenRate: "5/min", workspaceRate: "off" }, 1));
    expect(own.headers["RateLimit-Policy"]).toBe('"token";q=5;w=60');
    expect(limiter.check({ ...subject, tokenId: "t9", tokenRate: "off", workspaceRate: "off" }, 1)).toBeUndefined();
    const hand = sync(limiter.check({ ...subject, tokenId: "t8", tokenRate: "plenty" }, 1));
    expect(hand.headers["RateLimit-Policy"]).toBe('"workspace";q=1000;w=60, "token";q=100;w=60');
  });

  it("a limit raised on the database keeps what was spent", () => {
    const limiter = createRateLimiter({ limits: limited(null, "30/1d"), ledger: createMemoryLedger(manualClock().now) });
    for (let i = 0; i < 3; i++) sync(limiter.check(subject, 10));
    expect(sync(limiter.check(subject, 10)).admitted).toBe(false);
    expect(remaining(sync(limiter.check({ ...subject, tokenRate: "1000/1d" }, 10))).token).toBe(960);
  });
});

/** The database's side of a lease, as the statement computes it (test/postgres runs the statement itself). */
function fakeDatabase(clock: () => number) {
  const rows = new Map<string, { debt: number; at: number }>();
  let statements = 0;
  const source = async (asks: readonly LeaseAsk[]): Promise<LeaseGrant[]> => {
    statements++;
    const now = clock() * 1000;
    return asks.map((a) => {
      const row = rows.get(a.key);
      const owed = row ? Math.max(0, row.debt - (now - row.at) / a.intervalUs - a.back) : 0;
      const granted = owed + a.need <= a.quota + 1e-6 ? Math.min(a.want, Math.floor(a.quota - owed + 1e-6)) : 0;
      rows.set(a.key, { debt: owed + granted, at: now });
      return { key: a.key, granted, debt: owed + granted };
    });
  };
  return { source, statements: () => statements };
}

async function admittedOf(ledger: Ledger, cost: number, n: number): Promise<number> {
  const limiter = createRateLimiter({ limits: limited(null, "1000/1d"), ledger });
  let admitted = 0;
  for (let i = 0; i < n; i++) if ((await limiter.check(subject, cost))!.admitted) admitted++;
  return admitted;
}

describe("budgets shared by nodes (the database's statement, emulated)", () => {
  it("a node takes a share at a time: one statement per 5 % of the quota, then answers alone", async () => {
    const clock = manualClock();
    const db = fakeDatabase(clock.now);
    const ledger = createSharedLedger({ source: db.source, clock: clock.now, giveBackEveryMs: 0 });
    expect(await admittedOf(ledger, 1, 200)).toBe(200);
    expect(db.statements()).toBe(Math.ceil(200 / (1 + 1000 * SHARE_OF_QUOTA)));
  });

  it("two nodes together never admit more than the limit, and not less than it minus their unspent shares", async () => {
    const clock = manualClock();
    const db = fakeDatabase(clock.now);
    const nodes = [0, 1].map(() => createRateLimiter({ limits: limited(null, "1000/1d"), ledger: createSharedLedger({ source: db.source, clock: clock.now, giveBackEveryMs: 0 }) }));
    let admitted = 0;
    // Interleaved, reads and bulks, far more than the limit.
    for (let i = 0; i < 600; i++) {
      const cost = i % 7 === 0 ? 35 : i % 3 === 0 ? 10 : 1;
      const v = await nodes[i % 2].check(subject, cost);
      if (v!.admitted) admitted += cost;
    }
    expect(admitted).toBeLessThanOrEqual(1000);
    expect(admitted).toBeGreaterThanOrEqual(1000 - 2 * (1000 * SHARE_OF_QUOTA + 35));
    // A refusal says how long until the units it lacks are paid back (86.4 s a unit at 1,000 a day).
    const v = await nodes[0].check(subject, 10);
    expect(v!.admitted).toBe(false);
    expect(Number(v!.headers["Retry-After"])).toBeLessThanOrEqual(Math.ceil(10 * 86.4));
  });

  it("units held unused go back, so the other node can spend them", async () => {
    const clock = manualClock();
    const db = fakeDatabase(clock.now);
    const a = createSharedLedger({ source: db.source, clock: clock.now, giveBackEveryMs: 0 });
    const b = createSharedLedger({ source: db.source, clock: clock.now, giveBackEveryMs: 0 });
    expect(await admittedOf(a, 1, 1)).toBe(1);
    await a.close();
    expect(await admittedOf(b, 1, 2000)).toBe(999);
  });

  it("when the database cannot be asked, a node goes on with a local share rather than refusing", async () => {
    const clock = manualClock();
    const errors: unknown[] = [];
    const ledger = createSharedLedger({ source: () => Promise.reject(new Error("gone")), clock: clock.now, onError: (e) => errors.push(e), giveBackEveryMs: 0 });
    expect(await admittedOf(ledger, 1, 10)).toBe(10);
    expect(errors).toHaveLength(1);
  });
});

describe("refusals reported", () => {
  it("one log line per token per minute, saying how many it held back; every refusal counted", () => {
    const clock = manualClock();
    const events: Record<string, unknown>[] = [];
    const logger = { requests: false, request: () => undefined, refused: () => undefined, event: (name: string, fields: Record<string, unknown> = {}) => events.push({ name, ...fields }) } satisfies ServerLogger;
    const counted: Refusal[] = [];
    const report = refusalReporter(logger, (r) => counted.push(r), clock.now);
    const refusal: Refusal = { limit: "token", class: "default", workspace: "acme", tokenId: "t1", cost: 1, retryAfter: 1 };
    for (let i = 0; i < 50; i++) report(refusal);
    report({ ...refusal, tokenId: "t2" });
    clock.advance(60_000);
    report(refusal);
    expect(counted).toHaveLength(52);
    expect(events.map((e) => [e.name, e.tokenId, e.suppressed])).toEqual([
      ["rate_limited", "t1", 0],
      ["rate_limited", "t2", 0],
      ["rate_limited", "t1", 49],
    ]);
  });
});
