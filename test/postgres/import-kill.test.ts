import { afterAll, beforeAll, describe, it } from "vitest";
import { sandbox, type Sandbox } from "../helpers/cli.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { killAndRerun } from "../cli/import/kill-scenario.js";
import { setupModels } from "../cli/import/support.js";

// The kill-and-rerun scenario of test/cli/import/kill.test.ts on PostgreSQL: the import
// runs in-process on the database (DDS_DATABASE_URL), committing batches in write groups.
let cluster: PgCluster;
let clean: Sandbox;
let killed: Sandbox;
beforeAll(async () => {
  cluster = await startPostgres();
  clean = sandbox();
  killed = sandbox();
  // In-process on a database of its own each (the URL takes precedence over DDS_DB), which
  // the test's snapshot reads too.
  for (const box of [clean, killed]) {
    box.db = await cluster.createDatabase();
    box.env.DDS_DATABASE_URL = box.db;
  }
  await Promise.all([setupModels(clean), setupModels(killed)]);
}, 60_000);
afterAll(async () => {
  clean?.cleanup();
  killed?.cleanup();
  await cluster?.stop();
});

describe("kill -9 during an import on PostgreSQL", () => {
  it("reruns after SIGKILL at random moments end in the same database as one clean run", () => killAndRerun(clean, killed), 300_000);
});
