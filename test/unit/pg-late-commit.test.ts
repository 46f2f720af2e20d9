import type postgres from "postgres";
import { describe, expect, it } from "vitest";
import { asDatabaseUnavailable } from "../../src/engine/store/db-errors.js";
import { noWrites } from "../../src/engine/store/pass-changes.js";
import { pgPasses } from "../../src/engine/store/postgres/pg-pass.js";
import { PgTx } from "../../src/engine/store/postgres/pg-sql.js";

describe("a late pass commit on PostgreSQL: its COMMIT's message", () => {
  it("sets its lock timeout first, writes its rows, then fences its contexts, then marks them and settles their freshness", () => {
    // A transaction of its own that sends nothing here: the deferred statements are only collected.
    const tx = new PgTx({} as postgres.TransactionSql, new Map(), undefined, true);
    const late = pgPasses.writeLate!(tx)!;
    const writes = noWrites();
    writes.records.push({ key: 7, data: '{"a":1}', sha256: "ab", issues: "[]", lineage: "{}", dataChanged: true });
    writes.evaluations.push({ id: "00000000-0000-4000-8000-000000000001", contextKey: 3, ruleKey: 1, ruleVersion: 1, outcome: true, trace: "{}" });
    writes.marks.push({ contextKey: 3, passedVersion: 5, passId: 9, stamp: "s" });
    late.finish(writes, [{ contextKey: 3, worker: "w", token: 1, evidenceVersion: 5, resolve: true }], new Date(0).toISOString());
    const text = tx.lastStatements()!;
    const at = (what: string) => {
      const i = text.indexOf(what);
      expect(i, what).toBeGreaterThanOrEqual(0);
      return i;
    };
    const order = [at("SET LOCAL lock_timeout"), at("UPDATE records"), at("INSERT INTO evaluations"), at("AS fenced"), at("SET passed_version"), at("freshness = 'resolved'")];
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("takes a lock not granted in time, also as the pool's 503 with the driver's error as its cause, for a reason to commit the locked way", () => {
    expect(pgPasses.isFenceFailure!(Object.assign(new Error("division by zero"), { code: "22012" }))).toBe(true);
    expect(pgPasses.isFenceFailure!(Object.assign(new Error("lock timeout"), { code: "55P03" }))).toBe(true);
    expect(pgPasses.isFenceFailure!(asDatabaseUnavailable(Object.assign(new Error("canceling statement due to lock timeout"), { code: "55P03" })))).toBe(true);
    expect(pgPasses.isFenceFailure!(Object.assign(new Error("gone"), { code: "08006" }))).toBe(false);
  });
});
