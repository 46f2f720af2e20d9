import { afterAll, beforeAll } from "vitest";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { until } from "../postgres/support.js";
import { postgresTarget, releaseFixture } from "./support.js";
import { describeUpgrade, itSurvivesAKilledUpgrade } from "./upgrade-suite.js";

// A PostgreSQL database of the released schema 1 (restored from its pg_dump), upgraded in place.
let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => cluster?.stop());

const FIXTURE = "postgres-schema-1";
describeUpgrade({ fixture: FIXTURE, from: 1, to: 7, migration: "0002-compact-keys", open: () => postgresTarget(cluster, releaseFixture(FIXTURE)) });
// The last release's schema (2): its upgrade adds columns and the rate budgets' table.
describeUpgrade({ fixture: "postgres-schema-2", from: 2, to: 7, migration: "incremental-passes", copies: false, open: () => postgresTarget(cluster, releaseFixture("postgres-schema-2")) });
// The releases after it: schema 3 gains the rate limits', token expiry's and stale_since's columns and the partial
// records_changed index; 6 (the release before the last) the index rebuilt.
describeUpgrade({ fixture: "postgres-schema-3", from: 3, to: 7, migration: "rate-limits", copies: false, open: () => postgresTarget(cluster, releaseFixture("postgres-schema-3")) });
describeUpgrade({ fixture: "postgres-schema-6", from: 6, to: 7, migration: "records-changed-partial", copies: false, open: () => postgresTarget(cluster, releaseFixture("postgres-schema-6")) });
// Schema 7, the last release's (946fbd5), is today's: it opens as it is and answers the same.
describeUpgrade({ fixture: "postgres-schema-7", from: 7, to: 7, migration: "", copies: false, open: () => postgresTarget(cluster, releaseFixture("postgres-schema-7")) });

itSurvivesAKilledUpgrade({
  title: "a migration killed after it copied the contributions rolls back; run again, it completes with every row",
  fixture: FIXTURE,
  from: 1,
  to: 7,
  records: 50_000,
  open: () => postgresTarget(cluster, releaseFixture(FIXTURE)),
  // The server rolls the transaction back when it sees its client gone.
  async afterKill(target) {
    const others = "SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()";
    await until(async () => (await target.query<{ n: number }>(others))[0].n === 0, "the killed migration's sessions to end");
  },
});
