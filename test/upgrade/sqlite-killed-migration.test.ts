import { expect } from "vitest";
import { releaseFixture, sqliteTarget } from "./support.js";
import { itSurvivesAKilledUpgrade } from "./upgrade-suite.js";

// Schema 1: the whole way up (migrations 0002 to 0005) is the one transaction killed.
itSurvivesAKilledUpgrade({
  title: "a migration killed while it copies contributions leaves the SQLite file as it was; run again, it completes with every row",
  fixture: "sqlite-schema-1",
  from: 1,
  to: 10,
  records: 50_000,
  open: async () => sqliteTarget(releaseFixture("sqlite-schema-1")),
  // What the killed process left (a WAL, a lock) is no harm: the file reads whole.
  afterKill: async (target) => expect(await target.query("PRAGMA integrity_check")).toEqual([{ integrity_check: "ok" }]),
});
