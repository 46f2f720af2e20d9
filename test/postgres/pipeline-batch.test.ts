import { afterAll, beforeAll } from "vitest";
import { openLocalEngine } from "../../src/engine/local-engine.js";
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
