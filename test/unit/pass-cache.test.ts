import { describe, expect, it } from "vitest";
import { PassCache, type CachedContext } from "../../src/engine/store/pass-cache.js";

/** A cached context of `records` records (their states are not looked at here). */
const entry = (passId: number, records: number): CachedContext => ({
  passId,
  stamp: "s",
  records: new Map(Array.from({ length: records }, (_, i) => [`r${i}`, { key: i, state: {} as never }])),
  links: [],
  evaluations: new Map(),
});

describe("pass cache", () => {
  it("gives a context back once, only for the pass it was kept by", () => {
    const cache = new PassCache(100);
    cache.put(1, entry(7, 10));
    expect(cache.take(1, 8, "s")).toBeUndefined();
    // Taken (even in vain): gone, so a failed pass cannot start from it again.
    expect(cache.take(1, 7, "s")).toBeUndefined();
    cache.put(1, entry(7, 10));
    expect(cache.take(1, 7, "s")?.passId).toBe(7);
    expect(cache.take(1, 7, "s")).toBeUndefined();
  });

  it("keeps the most recently passed contexts within its budget of records", () => {
    const cache = new PassCache(25);
    cache.put(1, entry(1, 10));
    cache.put(2, entry(2, 10));
    cache.put(3, entry(3, 10));
    // 30 records over a budget of 25: the least recently kept went first.
    expect(cache.recentKeys(10)).toEqual([3, 2]);
    cache.put(2, entry(4, 10));
    expect(cache.recentKeys(10)).toEqual([2, 3]);
    expect(cache.recentKeys(1)).toEqual([2]);
    // Larger than the whole budget: not kept at all.
    cache.put(5, entry(5, 26));
    expect(cache.recentKeys(10)).toEqual([2, 3]);
    cache.take(3, 3, "s");
    expect(cache.recentKeys(10)).toEqual([2]);
  });
});
