import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalEngine } from "../../src/engine/local-engine.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { inspect, until } from "./support.js";

const PERSON = { name: "Person", identity: ["ssn"], fields: [{ name: "ssn", type: "string" as const }, { name: "income", type: "number" as const }] };

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

describe("PostgreSQL: statistics of a young database", () => {
  it("bulk requests (no write group) ANALYZE the evidence tables once they outgrow their statistics, without autovacuum", async () => {
    const url = await cluster.createDatabase();
    const engine = await openLocalEngine({ db: url });
    const look = inspect(url);
    try {
      const model = (await engine.createModel(PERSON)).modelId;
      await engine.setModelStatus(model, "active");
      const contextId = (await engine.createContext({ name: "young", type: "case" })).contextId;
      // Autovacuum's analyses are counted apart (autoanalyze_count): only the node's own count here.
      const analyzed = async () => {
        const rows = await look.unsafe<{ relname: string; n: number }[]>(
          "SELECT relname, analyze_count::int AS n FROM pg_stat_user_tables WHERE relname IN ('records', 'contributions')",
        );
        return rows.length === 2 && rows.every((r) => r.n > 0);
      };
      expect(await analyzed()).toBe(false);
      // The statistics reach the server after the writes commit: the node asks again with later writes.
      let n = 0;
      await until(async () => {
        const items = Array.from({ length: 100 }, () => ({ contextId, modelId: model, sourceId: "feed", sourceType: "document", data: { ssn: `s${n++}`, income: n } }));
        const res = await engine.bulkCreateContributions({ items });
        expect(res.summary.failed).toBe(0);
        return analyzed();
      }, "an ANALYZE of records and contributions");
      expect(n).toBeGreaterThanOrEqual(1000);
      // What the planner now knows: about as many records as were written.
      const [{ tuples }] = await look.unsafe<{ tuples: number }[]>("SELECT reltuples::int AS tuples FROM pg_class WHERE relname = 'records'");
      expect(tuples).toBeGreaterThanOrEqual(1000);
    } finally {
      await look.end();
      await engine.close();
    }
  });
});
