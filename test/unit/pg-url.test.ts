import { describe, expect, it } from "vitest";
import { asDatabaseUnavailable } from "../../src/engine/store/db-errors.js";
import { redactUrl } from "../../src/engine/store/location.js";
import { createPermits } from "../../src/engine/store/postgres/pg-permits.js";
import { parsePgUrl } from "../../src/engine/store/postgres/pg-url.js";
import { backoffMs, RECONNECT_BACKOFF } from "../../src/util/backoff.js";

describe("PostgreSQL URLs", () => {
  it("hide the password, multi-host ones too", () => {
    expect(redactUrl("postgres://dds:secret@db.internal:5432/dds")).toBe("postgres://dds:***@db.internal:5432/dds");
    expect(redactUrl("postgres://dds:s3@h1:5432,h2:5433/dds?target_session_attrs=read-write")).toBe("postgres://dds:***@h1:5432,h2:5433/dds?target_session_attrs=read-write");
    expect(redactUrl("postgresql://dds@h1,h2/dds")).toBe("postgresql://dds@h1,h2/dds");
    expect(redactUrl("postgres://h/dds?x=a@b")).toBe("postgres://h/dds?x=a@b");
  });

  it("give ddsctl its pool_size and pool_timeout, and the driver the rest", () => {
    expect(parsePgUrl("postgres://h1:1,h2:2/dds?pool_size=20&target_session_attrs=read-write&pool_timeout=2.5")).toEqual({
      driverUrl: "postgres://h1:1,h2:2/dds?target_session_attrs=read-write",
      poolSize: 20,
      poolTimeoutMs: 2500,
      params: new Set(["pool_size", "target_session_attrs", "pool_timeout"]),
    });
    expect(parsePgUrl("postgres://h/dds?pool_size=4")).toMatchObject({ driverUrl: "postgres://h/dds", poolSize: 4 });
    expect(parsePgUrl("postgres://h/dds")).toEqual({ driverUrl: "postgres://h/dds", params: new Set() });
    expect(() => parsePgUrl("postgres://h/dds?pool_size=0")).toThrow(/pool_size=0 must be a positive integer/);
    expect(() => parsePgUrl("postgres://h/dds?pool_timeout=soon")).toThrow(/pool_timeout=soon must be a positive number/);
  });
});

describe("database failures", () => {
  it("are 503 database_unavailable with Retry-After when the database is away, read-only, full or busy; anything else is left alone", () => {
    for (const code of ["ECONNREFUSED", "CONNECTION_CLOSED", "57P01", "08006", "25006", "53300", "55P03", "40P01"]) {
      const err = asDatabaseUnavailable(Object.assign(new Error(`failed ${code}`), { code }));
      expect(err, code).toMatchObject({ code: "database_unavailable", status: 503, exitCode: 6 });
      expect(err?.retryAfter, code).toBeGreaterThan(0);
    }
    for (const code of ["23505", "42P01", undefined]) expect(asDatabaseUnavailable(Object.assign(new Error("x"), { code }))).toBeUndefined();
  });
});

describe("the pool's slots", () => {
  it("are handed out in order, and a wait past its bound gets none", async () => {
    const permits = createPermits(1);
    const first = await permits.acquire(10);
    expect(first).toBeDefined();
    expect(await permits.acquire(20)).toBeUndefined();
    const second = permits.acquire(5000);
    first!.release();
    first!.release(); // twice is once
    const got = await second;
    expect(got).toBeDefined();
    expect(permits.oldest()).toBeGreaterThanOrEqual(0);
    got!.release();
    expect(permits.oldest()).toBe(0);
  });
});

describe("reconnecting", () => {
  it("backs off doubling from 0.2 s to a cap of 1.5 s, plus up to half again at random", () => {
    const at = (attempts: number, r: number) => backoffMs(attempts, { ...RECONNECT_BACKOFF, random: () => r });
    expect([1, 2, 3, 4, 10, 1000].map((n) => at(n, 0))).toEqual([200, 400, 800, 1500, 1500, 1500]);
    expect(at(10, 0.999)).toBeLessThanOrEqual(2250);
    expect(at(1, 0.5)).toBe(250);
  });
});
