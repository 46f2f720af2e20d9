import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { createPipeline } from "../../src/engine/pipeline/worker.js";
import type { Sql } from "../../src/engine/store/sql.js";
import type { Store } from "../../src/engine/store/store.js";
import { RULES, setupMortgageModels } from "../contract/mortgage-models.js";
import { freshnessOf, newMortgageCase } from "../helpers/mortgage-case.js";

/**
 * A store whose first read-only transaction never settles: a pass stuck on a database
 * call, as one was seen on a PostgreSQL node frozen past its lease and resumed.
 */
function withOneStuckRead(store: Store): Store {
  let stuck = false;
  const sql = new Proxy(store.sql, {
    get(target, prop, receiver) {
      if (prop !== "tx") return Reflect.get(target, prop, receiver);
      return (fn: (tx: Sql) => Promise<unknown>, options?: { readOnly?: boolean }) => {
        if (options?.readOnly && !stuck) {
          stuck = true;
          return new Promise(() => undefined);
        }
        return target.tx(fn, options);
      };
    },
  });
  return new Proxy(store, { get: (target, prop, receiver) => (prop === "sql" ? sql : Reflect.get(target, prop, receiver)) });
}

describe("a stuck batch of passes", () => {
  it("stops extending its claims, is given up with an error, and another worker resolves its context", async () => {
    const engine = createLocalEngine({ db: join(mkdtempSync(join(tmpdir(), "ddsctl-stuck-")), "dds.db") });
    try {
      const models = await setupMortgageModels(engine);
      await engine.createRule(RULES.ltv as never);
      const contextId = await newMortgageCase(engine, models);
      const store = engine.ctx.store;
      const leaseMs = 100;
      const stuck = createPipeline(withOneStuckRead(store), { workerId: "stuck", leaseMs, maxPassMs: 2 * leaseMs });
      const other = createPipeline(store, { workerId: "other", leaseMs });

      const givenUp = expect(stuck.stepMany(1)).rejects.toThrow(/without ending \(stuck reading its inputs\); its claims were left to lapse/);
      await givenUp;
      // Its claim lapses (no heartbeat any more): the other worker takes it over and resolves it.
      for (;;) {
        if ((await other.stepMany(1)) > 0 && (await freshnessOf(engine, contextId)) === "resolved") break;
        await new Promise((r) => setTimeout(r, leaseMs / 4));
      }
      // Claimed twice: by the stuck worker, then taken over by the other.
      const row = await store.sql.get<{ token: number; freshness: string }>("SELECT claim_token AS token, freshness FROM contexts WHERE uuid = ?", [store.sql.dialect.uuid(contextId)]);
      expect({ token: Number(row!.token), freshness: row!.freshness }).toEqual({ token: 2, freshness: "resolved" });
    } finally {
      await engine.close();
    }
  });
});
