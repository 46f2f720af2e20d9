import { describe, expect, it } from "vitest";
import { GroupedCommits, type WriteGroup } from "../../src/engine/write-groups.js";

/** A write group that only counts how often it was opened: GroupedCommits never calls it. */
function counter() {
  let opened = 0;
  const start = () => {
    opened++;
    return { commit() {}, rollback() {}, rows: "table" } as unknown as WriteGroup;
  };
  return { start, opened: () => opened };
}

describe("grouped commits", () => {
  it("is due once the open group has taken maxItems items, whatever the time", () => {
    const c = counter();
    // A day: the clock can never make it due within the test.
    const groups = new GroupedCommits(c.start, 86_400_000, 10);
    expect(groups.isDue()).toBe(false);
    groups.begin();
    groups.add(6);
    expect(groups.isDue()).toBe(false);
    groups.add(4);
    expect(groups.isDue()).toBe(true);
    expect(groups.take()).toBeDefined();
    expect(groups.isDue()).toBe(false);
    // A new group counts from zero.
    groups.begin();
    groups.add(9);
    expect(groups.isDue()).toBe(false);
    expect(c.opened()).toBe(2);
  });

  it("begin while a group is open neither opens another nor resets its count", () => {
    const c = counter();
    const groups = new GroupedCommits(c.start, 86_400_000, 10);
    groups.begin();
    groups.add(8);
    groups.begin();
    groups.add(2);
    expect(groups.isDue()).toBe(true);
    expect(c.opened()).toBe(1);
  });

  it("without maxItems only the clock makes a group due", () => {
    const groups = new GroupedCommits(counter().start, 86_400_000);
    groups.begin();
    groups.add(1_000_000);
    expect(groups.isDue()).toBe(false);
    const now = new GroupedCommits(counter().start, 0);
    now.begin();
    expect(now.isDue()).toBe(true);
  });
});
