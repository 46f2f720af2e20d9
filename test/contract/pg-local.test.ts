import { afterAll } from "vitest";
import { openLocalEngine, type LocalEngine } from "../../src/engine/local-engine.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { mortgageSuite } from "./mortgage-suite.js";

let cluster: PgCluster | undefined;
let engine: LocalEngine | undefined;

afterAll(async () => {
  await engine?.close();
  await cluster?.stop();
});

// The same suite as local.test.ts, with the engine in-process on a real PostgreSQL that
// this file starts from the machine's binaries.
mortgageSuite("local engine on PostgreSQL", async () => {
  cluster = await startPostgres();
  engine = await openLocalEngine({ db: await cluster.createDatabase() });
  return engine;
});
