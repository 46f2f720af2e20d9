import { afterAll, beforeAll } from "vitest";
import { sandbox } from "../helpers/cli.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { describeUnchangedRerun } from "../cli/import/unchanged-rerun-suite.js";

// The re-run cases of test/cli/import/unchanged-rerun.test.ts in-process on PostgreSQL: each
// sandbox on a database of its own (DDS_DATABASE_URL takes precedence over DDS_DB).
let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

describeUnchangedRerun("PostgreSQL", async () => {
  const box = sandbox();
  box.db = await cluster.createDatabase();
  box.env.DDS_DATABASE_URL = box.db;
  return box;
});
