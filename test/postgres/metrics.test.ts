import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpClient } from "../../src/client/index.js";
import { setupMortgageModels } from "../contract/mortgage-models.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { startNode, tokenFor, type InProcessNode } from "../helpers/pg-nodes.js";
import { scrape, sampleValue } from "../helpers/prom-text.js";
import { until } from "./support.js";
import { issueToken } from "../../src/engine/auth/index.js";

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

  it("time the database's operations (PostgreSQL: statements and transactions), by outcome", async () => {
    const ops = (text: string) => sampleValue(text, "dds_db_query_duration_seconds_count", { outcome: "ok" }) ?? 0;
    const before = ops(await metrics());
    await node.store.sql.get("SELECT 1 AS one");
    await node.store.sql.tx((t) => t.get("SELECT 2 AS two"));
    const after = await metrics();
    expect(ops(after) - before).toBeGreaterThanOrEqual(2);
    expect(sampleValue(after, "dds_db_query_duration_seconds_bucket", { outcome: "ok", le: "+Inf" })).toBe(ops(after));
    expect(sampleValue(after, "dds_build_info", { store: "postgres" })).toBe(1);
  });
});

describe("metrics while the database is away", () => {
  it("keep the backlog and outbox gauges at their last reading (dds_db_up 0), never 0, and pass promtool", async () => {
    const own = await startPostgres();
    const away = await startNode(await own.createDatabase(), { metrics: { port: 0 }, worker: false, webhooks: false });
    try {
      const { token } = await issueToken(away.store, { workspace: "default", scopes: ["admin"] });
      const api = createHttpClient({ baseUrl: `${away.origin}/v1`, token });
      const ids = await setupMortgageModels(api);
      // No dispatcher runs on this node: the delivery of the context turning stale stays pending.
      await api.createWebhook({ url: "http://127.0.0.1:9/hook", events: ["context.stale"] });
      const { contextId } = await api.createContext({ name: "waits" });
      await api.createContribution({ contextId, modelId: ids.Loan, sourceId: "form", sourceType: "document", data: { amount: 100000 } });
      await api.close();
      const up = await until(async () => {
        const text = await scrape(away.server.metricsUrl!);
        return sampleValue(text, "dds_pipeline_contexts_backlog", { freshness: "stale" }) === 1 && text;
      }, "the stale context counted");
      const pendingBefore = sampleValue(up, "dds_webhook_outbox_pending");
      expect(pendingBefore).toBeGreaterThanOrEqual(1);
      const waitedBefore = sampleValue(up, "dds_pipeline_oldest_stale_seconds")!;
      await own.halt("fast");
      const down = await scrape(away.server.metricsUrl!);
      expect(sampleValue(down, "dds_db_up")).toBe(0);
      expect(sampleValue(down, "dds_pipeline_contexts_backlog", { freshness: "stale" })).toBe(1);
      expect(sampleValue(down, "dds_webhook_outbox_pending")).toBe(pendingBefore);
      // The age goes on from when the context turned stale.
      expect(sampleValue(down, "dds_pipeline_oldest_stale_seconds")).toBeGreaterThanOrEqual(waitedBefore);
      const lint = await execa("promtool", ["check", "metrics"], { input: down, reject: false });
      expect(`${lint.stdout}${lint.stderr}`).toBe("");
    } finally {
      await away.close().catch(() => undefined);
      await own.stop();
    }
  });
});
