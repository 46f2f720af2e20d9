import { execa } from "execa";
import { expect, it } from "vitest";
import { BIN } from "../helpers/cli.js";
import { releaseFixture, sqliteTarget } from "./support.js";
import { describeUpgrade } from "./upgrade-suite.js";

// A SQLite file of every released schema (1 to 6, and 9), upgraded in place by today's ddsctl: the
// compact-keys rebuild brings 1 to 4 straight to the latest schema; 5 adds columns (the
// incremental passes' and the rate limits') and the rate budgets' table.
for (const from of [1, 2, 3, 4]) {
  const fixture = `sqlite-schema-${from}`;
  describeUpgrade({ fixture, from, to: 10, migration: "0005-compact-keys", open: async () => sqliteTarget(releaseFixture(fixture)) });
}
describeUpgrade({ fixture: "sqlite-schema-5", from: 5, to: 10, migration: "incremental-passes", copies: false, open: async () => sqliteTarget(releaseFixture("sqlite-schema-5")) });
// The releases after it: schema 6 (the incremental passes' columns, records_changed made
// whole) gains the rate limits', token expiry's and stale_since's columns and the partial
// index; schema 9 (the release before the last) the partial index.
describeUpgrade({ fixture: "sqlite-schema-6", from: 6, to: 10, migration: "rate-limits", copies: false, open: async () => sqliteTarget(releaseFixture("sqlite-schema-6")) });
describeUpgrade({ fixture: "sqlite-schema-9", from: 9, to: 10, migration: "records-changed-partial", copies: false, open: async () => sqliteTarget(releaseFixture("sqlite-schema-9")) });
// Schema 10, the last release's (946fbd5), is today's: it opens as it is and answers the same.
describeUpgrade({ fixture: "sqlite-schema-10", from: 10, to: 10, migration: "", copies: false, open: async () => sqliteTarget(releaseFixture("sqlite-schema-10")) });

it("in a terminal, the upgrade redraws one progress line with the share of rows copied", async () => {
  const target = sqliteTarget(releaseFixture("sqlite-schema-4"));
  try {
    // A pseudo-terminal (util-linux `script`), as a user running ddsctl migrate sees it.
    const command = ["node", BIN, ...target.flags, "migrate"].map((a) => `'${a}'`).join(" ");
    const r = await execa("script", ["-qefc", command, "/dev/null"], { env: { ...target.env, TERM: "dumb" }, extendEnv: false, reject: false });
    expect(r.exitCode, r.stdout).toBe(0);
    const label = "upgrading the database to this ddsctl's schema \\(0005-compact-keys\\)";
    expect(r.stdout).toMatch(new RegExp(`\\r${label}: \\w+ \\d+ % \\([\\d,]+ of [\\d,]+ rows\\)\\x1b\\[K`));
    // It ends drawn full, then moves on; no line per table as in a log.
    expect(r.stdout).toMatch(new RegExp(`\\r${label}: settings 100 % \\(([\\d,]+) of \\1 rows\\)\\x1b\\[K\\r?\\n`));
    expect(r.stdout).not.toMatch(new RegExp(`${label}: \\w+\\r?\\n`));
    expect(r.stdout).toContain("applied 6 migration(s); schema version 10");
  } finally {
    await target.cleanup();
  }
});
