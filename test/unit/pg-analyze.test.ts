import type postgres from "postgres";
import { describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/engine/store/postgres/pg-analyze.js";

type Table = { name: string; adult: boolean; grown: boolean };

/** A pool whose one client answers the statistics query with `tables()` and records every statement. */
function fakePool(tables: () => Table[]) {
  const sent: string[] = [];
  let settle: () => void = () => undefined;
  let pending = 0;
  const client = {
    unsafe: async (text: string) => {
      sent.push(text.trim().split(/\s+/)[0]);
      return text.startsWith("ANALYZE") ? [] : tables();
    },
  } as unknown as postgres.Sql;
  return {
    sent,
    pool: {
      use: async <T>(fn: (c: postgres.Sql) => Promise<T>): Promise<T> => {
        pending++;
        try {
          return await fn(client);
        } finally {
          if (--pending === 0) settle();
        }
      },
    },
    /** Resolves once no statement is running. */
    idle: () => new Promise<void>((r) => (pending === 0 ? setImmediate(r) : (settle = () => setImmediate(r)))),
  };
}

describe("createAnalyzer: statistics of young evidence tables", () => {
  it("analyzes the tables that grew, asks at most once a second, and stops asking once both tables are adult", async () => {
    let clock = 0;
    let tables: Table[] = [
      { name: "records", adult: false, grown: true },
      { name: "contributions", adult: false, grown: false },
    ];
    const f = fakePool(() => tables);
    const analyze = createAnalyzer(f.pool, () => clock);
    analyze();
    await f.idle();
    expect(f.sent).toEqual(["SELECT", "ANALYZE"]);
    // Within the second: not asked again.
    clock = 999;
    analyze();
    await f.idle();
    expect(f.sent).toHaveLength(2);
    // Nothing grew: asked, nothing analyzed.
    clock = 1000;
    tables = tables.map((t) => ({ ...t, grown: false }));
    analyze();
    await f.idle();
    expect(f.sent).toEqual(["SELECT", "ANALYZE", "SELECT"]);
    // Both adult: asked once more, then never again.
    clock = 2000;
    tables = tables.map((t) => ({ ...t, adult: true }));
    analyze();
    await f.idle();
    clock = 10_000;
    analyze();
    await f.idle();
    expect(f.sent).toEqual(["SELECT", "ANALYZE", "SELECT", "SELECT"]);
  });

  it("a failed query leaves it to autovacuum, and asks again later", async () => {
    let clock = 0;
    let fail = true;
    const f = fakePool(() => {
      if (fail) throw new Error("permission denied");
      return [{ name: "records", adult: false, grown: true }];
    });
    const analyze = createAnalyzer(f.pool, () => clock);
    analyze();
    await f.idle();
    fail = false;
    clock = 1000;
    analyze();
    await f.idle();
    expect(f.sent).toEqual(["SELECT", "SELECT", "ANALYZE"]);
  });
});
