import { afterAll, beforeAll, expect, it } from "vitest";
import { openLocalEngine } from "../../src/engine/local-engine.js";
import { createPipeline } from "../../src/engine/pipeline/worker.js";
import { setupMortgageModels } from "../contract/mortgage-models.js";
import { newMortgageCase } from "../helpers/mortgage-case.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { pipelineBatchSuite } from "../helpers/pipeline-batch-suite.js";

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

// The same cases on PostgreSQL: its claims lock with SKIP LOCKED and its commit writes with unnest.
pipelineBatchSuite("PostgreSQL", async () => openLocalEngine({ db: await cluster.createDatabase() }));

it("a worker beside other nodes takes first the context it passed last (it starts from memory)", async () => {
  const engine = await openLocalEngine({ db: await cluster.createDatabase() });
  try {
    expect(engine.ctx.store.hearsOtherProcesses).toBe(true);
    const models = await setupMortgageModels(engine);
    const older = await newMortgageCase(engine, models);
    const passed = await newMortgageCase(engine, models);
    const claimed: string[] = [];
    const pipeline = createPipeline(engine.ctx.store, { workerId: "node-a", observer: { claimed: (c) => void claimed.push(c.contextId) } });
    expect(await pipeline.stepMany(1, { only: [passed] })).toBe(1);
    // Both one contribution behind now; by the claim's plain order the older goes first.
    await engine.createContribution({ contextId: passed, modelId: models.Loan, sourceId: "again", sourceType: "document", data: { amount: 250000, propertyValue: 400000, monthlyDebt: 1000 } });
    const lag = "SELECT evidence_version - resolved_version AS lag FROM contexts WHERE uuid = ?";
    const lagOf = async (id: string) => Number((await engine.ctx.db.get<{ lag: number }>(lag, [engine.ctx.db.dialect.uuid(id)]))!.lag);
    expect(await lagOf(passed)).toBe(await lagOf(older));
    expect(await pipeline.stepMany(1)).toBe(1);
    expect(claimed).toEqual([passed, passed]);
    // Another worker of another process (an empty cache) keeps the plain order.
    await engine.createContribution({ contextId: passed, modelId: models.Loan, sourceId: "third", sourceType: "document", data: { amount: 250000, propertyValue: 400000, monthlyDebt: 1000 } });
    const [other] = await engine.pipeline.repo.claimMany("node-b", 30_000, 1);
    expect(other.contextId).toBe(older);
  } finally {
    await engine.close();
  }
});

it("counts the workers holding a claim mark on the database, of every process, while they live", async () => {
  const url = await cluster.createDatabase();
  const first = await openLocalEngine({ db: url });
  const second = await openLocalEngine({ db: url });
  try {
    const repo = first.pipeline.repo;
    // A worker is marked with its first claim (nothing to claim is still a claim).
    await createPipeline(first.ctx.store, { workerId: "node-a" }).stepMany(1);
    expect(await repo.liveWorkers()).toBe(1);
    await createPipeline(second.ctx.store, { workerId: "node-b" }).stepMany(1);
    expect(await repo.liveWorkers()).toBe(2);
    // The second process ends: its session, and its mark, go with it.
    await second.close();
    expect(await repo.liveWorkers()).toBe(1);
  } finally {
    await first.close();
    await second.close().catch(() => undefined);
  }
});
