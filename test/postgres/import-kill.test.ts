import { afterAll, beforeAll, describe, it } from "vitest";
import { sandbox, type Sandbox } from "../helpers/cli.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { killAndRerun, SHAPES } from "../cli/import/kill-scenario.js";
import { setupModels } from "../cli/import/support.js";

// The kill-and-rerun scenario of test/cli/import/kill.test.ts on PostgreSQL, on both import
// shapes: the import runs in-process on the database (DDS_DATABASE_URL), committing batches
// in write groups.
let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

describe.each(SHAPES)("kill -9 during an import on PostgreSQL (%s shape)", (_shape, shape) => {
  let clean: Sandbox;
  let killed: Sandbox;
  beforeAll(async () => {
    clean = sandbox();
    killed = sandbox();
    // In-process on a database of its own each (the URL takes precedence over DDS_DB), which
    // the test's snapshot reads too. One after the other: the in-process CLI changes the
    // working directory while it runs.
    for (const box of [clean, killed]) {
      box.db = await cluster.createDatabase();
      box.env.DDS_DATABASE_URL = box.db;
      await setupModels(box);
    }
  }, 60_000);
  afterAll(() => {
    clean?.cleanup();
    killed?.cleanup();
  });

  it("reruns after SIGKILL at random moments end in the same database as one clean run", () => killAndRerun(clean, killed, shape), 300_000);
});
