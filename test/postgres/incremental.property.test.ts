import { afterAll, beforeAll } from "vitest";
import { openLocalEngine } from "../../src/engine/local-engine.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { incrementalPassSuite } from "../helpers/incremental-suite.js";

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

// The same histories on PostgreSQL: its loads pipeline their statements, its commits unnest arrays.
incrementalPassSuite("PostgreSQL", async () => openLocalEngine({ db: await cluster.createDatabase() }), 15);
