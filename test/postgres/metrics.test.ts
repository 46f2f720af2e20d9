import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpClient } from "../../src/client/index.js";
import { setupMortgageModels } from "../contract/mortgage-models.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { startNode, tokenFor, type InProcessNode } from "../helpers/pg-nodes.js";
import { scrape, sampleValue } from "../helpers/prom-text.js";
import { until } from "./support.js";

/** The metrics of a node on PostgreSQL: its pool, and a take-over through PostgreSQL's claim statement. */

let cluster: PgCluster;
let node: InProcessNode;
let url: string;

beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase();
  node = await startNode(url, { metrics: { port: 0 }, worker: { settleMs: 5 }, webhooks: false });
});

afterAll(async () => {
  await node?.close();
  await cluster?.stop();
});

const metrics = () => scrape(node.server.metricsUrl!);

describe("metrics on PostgreSQL", () => {
  it("show the pool: its size, what is in use (a transaction held open counts) and what is idle", async () => {
    const inUse = (text: string) => sampleValue(text, "dds_db_pool_connections", { state: "in_use" })!;
    // Once start-up's statements (the first claim, the key purge) are done, nothing holds a connection.
    const idle = await until(async () => {
      const text = await metrics();
      return inUse(text) === 0 && text;
    }, "an idle pool");
    const max = sampleValue(idle, "dds_db_pool_max")!;
    expect(max).toBeGreaterThan(0);
    expect(sampleValue(idle, "dds_db_pool_connections", { state: "idle" })).toBe(max);
    expect(sampleValue(idle, "dds_db_pool_waiting")).toBe(0);
    expect(sampleValue(idle, "dds_db_up")).toBe(1);
    let finish!: () => void;
    const held = new Promise<void>((r) => (finish = r));
    let opened!: () => void;
    const open = new Promise<void>((r) => (opened = r));
    const tx = node.store.sql.tx(async (t) => {
      await t.get("SELECT 1 AS one");
      opened();
      await held;
    });
    try {
      await open;
      const busy = await metrics();
      expect(inUse(busy)).toBeGreaterThanOrEqual(1);
      expect(sampleValue(busy, "dds_db_pool_connections", { state: "idle" })).toBe(max - inUse(busy));
    } finally {
      finish();
      await tx;
    }
    await until(async () => inUse(await metrics()) === 0, "the connection given back");
  });

  it("count a take-over of a claim whose lease ran out, through PostgreSQL's claim statement", async () => {
    const client = createHttpClient({ baseUrl: `${node.origin}/v1`, token: await tokenFor(url, "admin") });
    const models = await setupMortgageModels(client);
    const { contextId } = await client.createContext({ name: "pg-takeover" });
    await client.createContribution({ contextId, modelId: models.Loan, sourceId: "form", sourceType: "document", data: { amount: 150000 } });
    await until(async () => (await client.getContext(contextId)).freshness === "resolved", "the first pass");
    const takeovers = (text: string) => sampleValue(text, "dds_pipeline_claim_takeovers_total") ?? 0;
    const before = takeovers(await metrics());
    await node.store.sql.run("UPDATE contexts SET freshness = 'computing', claimed_by = 'dead-node', lease_expires_at = ? WHERE uuid = ?", [node.store.sql.dialect.time(1), contextId]);
    // Evidence wakes the worker (PostgreSQL's idle worker sleeps until a notification or a lease's end).
    node.store.sql.signal("work");
    await until(async () => takeovers(await metrics()) > before, "the take-over");
    await until(async () => (await client.getContext(contextId)).freshness === "resolved", "the pass after the take-over");
    expect(takeovers(await metrics())).toBe(before + 1);
    await client.close();
  });
});
