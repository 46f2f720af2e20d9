import postgres from "postgres";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openLocalEngine, type LocalEngine } from "../../src/engine/local-engine.js";
import { createPipeline } from "../../src/engine/pipeline/worker.js";
import { runPass } from "../../src/engine/pipeline/stages/index.js";
import { passChanges } from "../../src/engine/store/pass-changes.js";
import type { Claim } from "../../src/engine/store/pipeline-repo.js";
import { RULES, setupMortgageModels } from "../contract/mortgage-models.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { freshnessOf, newMortgageCase } from "../helpers/mortgage-case.js";
import { until } from "./support.js";

// A pass commit on PostgreSQL sends every write with its COMMIT, with a fence that locks
// and checks its contexts after its rows (pg-pass.ts, LateCommit): until then it holds no
// lock a writer of evidence needs, and what changed between its read and its COMMIT (or a
// lock it was not granted in time) sends it the locked way.

let cluster: PgCluster;
let engine: LocalEngine;
let url: string;
let models: Awaited<ReturnType<typeof setupMortgageModels>>;

beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});
beforeEach(async () => {
  url = await cluster.createDatabase();
  engine = await openLocalEngine({ db: url });
  models = await setupMortgageModels(engine);
  await engine.createRule(RULES.ltv as never);
});
afterEach(async () => {
  await engine.close();
});

/** A claimed context and its pass, ready to commit. */
async function claimedPass(worker = "w1", leaseMs = 30_000): Promise<{ id: string; claim: Claim; changes: ReturnType<typeof passChanges> }> {
  const id = await newMortgageCase(engine, models);
  const repo = engine.pipeline.repo;
  const [claim] = await repo.claimMany(worker, leaseMs, 1, { only: [id] });
  const loaded = (await repo.loadPassInputs([claim])).get(claim.contextKey)!;
  return { id, claim, changes: passChanges(loaded, runPass(loaded.input)) };
}

/** Tries to lock the context's row from another connection at once: true when nothing holds it. */
async function lockable(contextKey: number): Promise<boolean> {
  try {
    await engine.ctx.db.all("SELECT id FROM contexts WHERE id = ? FOR NO KEY UPDATE NOWAIT", [contextKey]);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === "55P03") return false;
    throw err;
  }
}

const evaluationsOf = (contextKey: number) => engine.ctx.db.all("SELECT outcome FROM evaluations WHERE context_id = ?", [contextKey]);

describe("a pass commit on PostgreSQL locks its contexts only with its COMMIT", () => {
  it("holds no lock on its context before its COMMIT's message, and commits it resolved", async () => {
    const { id, claim, changes } = await claimedPass();
    const seen: boolean[] = [];
    // Called inside the commit's transaction, after its read, before its COMMIT.
    const outcomes = await engine.pipeline.repo.commitPasses([{ claim, changes }], async () => void seen.push(await lockable(claim.contextKey)));
    expect(seen).toEqual([true]);
    expect(outcomes).toEqual(["resolved"]);
    expect(await freshnessOf(engine, id)).toBe("resolved");
    expect(await evaluationsOf(claim.contextKey)).toHaveLength(1);
  });

  it("evidence written between its read and its COMMIT: the fence rolls it back, and it commits again, stale", async () => {
    const { id, claim, changes } = await claimedPass();
    let calls = 0;
    const outcomes = await engine.pipeline.repo.commitPasses([{ claim, changes }], async () => {
      // The first attempt read the claim's version; a writer commits meanwhile, unhindered.
      if (calls++ === 0) {
        await engine.createContribution({ contextId: id, modelId: models.Loan, sourceId: "late", sourceType: "document", data: { amount: 210000, propertyValue: 400000, monthlyDebt: 1000 } });
      }
    });
    // Told again by the commit that counted: the first one's events were rolled back with it.
    expect(calls).toBe(2);
    expect(outcomes).toEqual(["stale"]);
    expect(await freshnessOf(engine, id)).toBe("stale");
    // The pass's output is kept (as a stale commit keeps it), and the next pass sees the late contribution.
    expect(await evaluationsOf(claim.contextKey)).toHaveLength(1);
    await engine.runPipeline({ contextIds: [id] });
    expect(await freshnessOf(engine, id)).toBe("resolved");
  });

  it("a claim taken over between its read and its COMMIT: nothing of it is kept", async () => {
    const { id, claim, changes } = await claimedPass("slow", 1);
    await new Promise((r) => setTimeout(r, 5));
    const outcomes = await engine.pipeline.repo.commitPasses([{ claim, changes }], async () => {
      // Its lease ran out: another worker takes the context over before this commit's COMMIT.
      const [takeover] = await engine.pipeline.repo.claimMany("fast", 30_000, 1, { only: [id] });
      if (takeover) expect(takeover.takenOver).toBe(true);
    });
    expect(outcomes).toEqual([undefined]);
    expect(await freshnessOf(engine, id)).toBe("computing");
    expect(await evaluationsOf(claim.contextKey)).toHaveLength(0);
  });

  it("a worker id with quotes and backslashes travels in the COMMIT's text unharmed", async () => {
    const id = await newMortgageCase(engine, models);
    let told = 0;
    const pipeline = createPipeline(engine.ctx.store, { workerId: "node 'a' \\ \"b\" \\'", onPass: async () => void told++ });
    expect(await pipeline.stepMany(1, { only: [id] })).toBe(1);
    expect(await freshnessOf(engine, id)).toBe("resolved");
    // Once: the fence found its claim (a mangled id would have sent it the locked way, told twice).
    expect(told).toBe(1);
  });

  it("a writer that marked its context and stamps one of its records while it commits gets no error, and the pass commits once the writer is done", async () => {
    const { id, claim, changes } = await claimedPass();
    const record = changes.writes.records[0]?.key;
    expect(record).toBeDefined();
    // A writer of evidence at its COMMIT, on a connection of its own: its mark holds the context.
    const side = postgres(url, { max: 2, onnotice: () => undefined });
    const writer = await side.reserve();
    try {
      await writer.unsafe("BEGIN");
      await writer.unsafe("SELECT id FROM contexts WHERE id = $1 FOR NO KEY UPDATE", [claim.contextKey]);
      const committing = engine.pipeline.repo.commitPasses([{ claim, changes }]);
      committing.catch(() => undefined);
      // The commit waits for the writer's context (at its fence, or, once it gave up there, the locked way).
      await until(async () => (await side.unsafe("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = 'ddsctl'")).length > 0, "the pass commit waiting for the context");
      // The writer's stamp of a record the commit writes: while the commit holds it at its
      // fence the two wait on each other, and the commit gives up first (its lock timeout,
      // well before the deadlock check); the stamp goes on, never failing.
      await writer.unsafe("UPDATE records SET changed_version = changed_version WHERE id = $1", [record!]);
      await writer.unsafe("COMMIT");
      expect(await committing).toEqual(["resolved"]);
    } finally {
      writer.release();
      await side.end();
    }
    expect(await freshnessOf(engine, id)).toBe("resolved");
    expect(await evaluationsOf(claim.contextKey)).toHaveLength(1);
  });
});
