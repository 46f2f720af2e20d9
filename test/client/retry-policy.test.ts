import { describe, expect, it } from "vitest";
import { decideRetry, DEFAULT_RETRY, parseRetryAfter, type FailedAttempt } from "../../src/client/retry-policy.js";

const base: FailedAttempt = { method: "POST", keyed: true, status: 503, retried: 0, elapsedMs: 0, seenServer: true };
const half = () => 0.5;

describe("parseRetryAfter", () => {
  it("reads delay-seconds and HTTP dates; anything else is undefined", () => {
    const now = Date.parse("2026-11-26T10:00:00.000Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Thu, 26 Nov 2026 10:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter("Thu, 26 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe("decideRetry", () => {
  it("retries 429 (with Retry-After), 502, 503 and 504, never another status", () => {
    for (const status of [502, 503, 504]) expect(decideRetry({ ...base, status }, DEFAULT_RETRY, half)).toBeDefined();
    expect(decideRetry({ ...base, status: 429, retryAfter: "1" }, DEFAULT_RETRY, half)).toBeDefined();
    for (const status of [400, 404, 409, 422, 500, 501]) expect(decideRetry({ ...base, status }, DEFAULT_RETRY, half)).toBeUndefined();
  });

  it("retries only what is safe to send again: a GET, or a write with an Idempotency-Key", () => {
    expect(decideRetry({ ...base, method: "GET", keyed: false }, DEFAULT_RETRY, half)).toBeDefined();
    expect(decideRetry({ ...base, method: "POST", keyed: false }, DEFAULT_RETRY, half)).toBeUndefined();
    expect(decideRetry({ ...base, method: "DELETE", keyed: false, status: undefined, code: "ECONNRESET" }, DEFAULT_RETRY, half)).toBeUndefined();
  });

  it("waits what Retry-After asks, plus at most 10 % jitter", () => {
    expect(decideRetry({ ...base, retryAfter: "2" }, DEFAULT_RETRY, () => 0)).toEqual({ waitMs: 2000, retryAfterMs: 2000 });
    expect(decideRetry({ ...base, retryAfter: "2" }, DEFAULT_RETRY, () => 1)).toEqual({ waitMs: 2200, retryAfterMs: 2000 });
  });

  it("backs off exponentially with jitter, capped", () => {
    const waits = [0, 1, 2, 3, 10].map((retried) => decideRetry({ ...base, retried: Math.min(retried, 7) }, DEFAULT_RETRY, () => 1)!.waitMs);
    expect(waits).toEqual([100, 200, 400, 800, 5000]);
    // Equal jitter: never less than half the back-off.
    expect(decideRetry({ ...base, retried: 2 }, DEFAULT_RETRY, () => 0)!.waitMs).toBe(200);
  });

  it("stops at its retry count and at its time budget, and never waits past the budget", () => {
    expect(decideRetry({ ...base, retried: DEFAULT_RETRY.retries }, DEFAULT_RETRY, half)).toBeUndefined();
    expect(decideRetry({ ...base, elapsedMs: 59_000, retryAfter: "2" }, DEFAULT_RETRY, half)).toBeUndefined();
    expect(decideRetry({ ...base, elapsedMs: 59_000, retryAfter: "0" }, DEFAULT_RETRY, half)).toEqual({ waitMs: 0, retryAfterMs: 0 });
  });

  it("a 429 with Retry-After is retried as often as asked within the throttled budget; one without, never (it can never pass)", () => {
    const limited = { ...base, status: 429, retryAfter: "3" };
    expect(decideRetry({ ...limited, retried: 1000, elapsedMs: 10 * 60_000 }, DEFAULT_RETRY, () => 0)).toEqual({ waitMs: 3000, retryAfterMs: 3000 });
    expect(decideRetry({ ...limited, elapsedMs: DEFAULT_RETRY.throttledForMs - 1000 }, DEFAULT_RETRY, () => 0)).toBeUndefined();
    expect(decideRetry({ ...base, status: 429 }, DEFAULT_RETRY, half)).toBeUndefined();
    expect(decideRetry({ ...limited, method: "POST", keyed: false }, DEFAULT_RETRY, half)).toBeUndefined();
  });

  it("connection resets are retried; a refused connection only once the server has answered before", () => {
    const reset = { ...base, status: undefined, code: "ECONNRESET" };
    expect(decideRetry(reset, DEFAULT_RETRY, half)).toBeDefined();
    expect(decideRetry({ ...reset, code: "ECONNREFUSED", seenServer: false }, DEFAULT_RETRY, half)).toBeUndefined();
    expect(decideRetry({ ...reset, code: "ECONNREFUSED", seenServer: true }, DEFAULT_RETRY, half)).toBeDefined();
    expect(decideRetry({ ...reset, code: "ENOTFOUND" }, DEFAULT_RETRY, half)).toBeUndefined();
  });
});
