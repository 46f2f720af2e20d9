import { afterAll } from "vitest";
import { openLocalEngine, type LocalEngine } from "../../src/engine/local-engine.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { SHARED_SECRET_KEY } from "../helpers/pg-nodes.js";
import { mortgageSuite } from "./mortgage-suite.js";
import { webhookSuite } from "./webhook-suite.js";

let cluster: PgCluster | undefined;
let engine: LocalEngine | undefined;

afterAll(async () => {
  await engine?.close();
  await cluster?.stop();
});

// The same suite as local.test.ts, with the engine in-process on a real PostgreSQL that
// this file starts from the machine's binaries.
// Webhook secrets are sealed with DDS_SECRET_KEY on PostgreSQL: the application is given it.
const open = async () => {
  cluster ??= await startPostgres();
  engine ??= await openLocalEngine({ db: await cluster.createDatabase(), env: { DDS_SECRET_KEY: SHARED_SECRET_KEY } });
  return engine;
};
mortgageSuite("local engine on PostgreSQL", open);
webhookSuite("local engine on PostgreSQL", open);
