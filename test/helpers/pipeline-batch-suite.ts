import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LocalEngine } from "../../src/engine/local-engine.js";
import { createPipeline } from "../../src/engine/pipeline/worker.js";
import { runPass } from "../../src/engine/pipeline/stages/index.js";
import { passChanges } from "../../src/engine/store/pass-changes.js";
import { RULES, setupMortgageModels } from "../contract/mortgage-models.js";
import { freshnessOf, newMortgageCase } from "./mortgage-case.js";

let engine: LocalEngine;
let models: Awaited<ReturnType<typeof setupMortgageModels>>;

const newCase = (amount?: number) => newMortgageCase(engine, models, amount);
const freshness = (id: string) => freshnessOf(engine, id);
const inContext = "(SELECT id FROM contexts WHERE uuid = ?)";
/** What a pass writes of a context: its records' and evaluations' rows as stored. */
const rowsOf = async (id: string) => ({
  records: await engine.ctx.db.all(`SELECT id, data, issues, lineage, updated_at FROM records WHERE context_id = ${inContext} ORDER BY id`, [engine.ctx.db.dialect.uuid(id)]),
  evaluations: await engine.ctx.db.all(`SELECT uuid, outcome, trace, computed_at FROM evaluations WHERE context_id = ${inContext} ORDER BY rule_id`, [engine.ctx.db.dialect.uuid(id)]),
});

/**
 * Batches of passes on one store (run on SQLite and on PostgreSQL): claims of several
 * contexts in one statement, a commit of several passes that fences the one taken over, and
 * a pass over unchanged evidence that writes no row. `open` gives a new engine on an empty
 * database for each test.
 */
export function pipelineBatchSuite(name: string, open: () => Promise<LocalEngine>): void {
  describe(`pipeline batches (${name})`, () => {
    beforeEach(async () => {
      engine = await open();
      models = await setupMortgageModels(engine);
      await engine.createRule(RULES.ltv as never);
    });
    afterEach(async () => {
      await engine.close();
    });

    it("claims up to n contexts in one statement, none twice, and resolves them together", async () => {
      const ids = [await newCase(), await newCase(), await newCase(), await newCase()];
      const repo = engine.pipeline.repo;
      const first = await repo.claimMany("w1", 30_000, 3, { only: ids });
      const second = await repo.claimMany("w2", 30_000, 3, { only: ids });
      expect(first).toHaveLength(3);
      expect(second).toHaveLength(1);
      expect(new Set([...first, ...second].map((c) => c.contextId))).toEqual(new Set(ids));
      for (const c of [...first, ...second]) await repo.release(c);

      const pipeline = createPipeline(engine.ctx.store, { workerId: "batch" });
      expect(await pipeline.stepMany(3, { only: ids })).toBe(3);
      expect(await pipeline.stepMany(3, { only: ids })).toBe(1);
      expect(await pipeline.stepMany(3, { only: ids })).toBe(0);
      for (const id of ids) expect(await freshness(id)).toBe("resolved");
    });

    it("takes the contexts it prefers first (its pass cache), unless another lags twice as far", async () => {
      const [a, b] = [await newCase(), await newCase()];
      const repo = engine.pipeline.repo;
      const db = engine.ctx.db;
      const keyOf = async (id: string) => Number((await db.get<{ id: number }>("SELECT id FROM contexts WHERE uuid = ?", [db.dialect.uuid(id)]))!.id);
      const lagOf = async (id: string) =>
        Number((await db.get<{ lag: number }>("SELECT evidence_version - resolved_version AS lag FROM contexts WHERE uuid = ?", [db.dialect.uuid(id)]))!.lag);
      const first = async (prefer?: number[]) => {
        const [claim] = await repo.claimMany("w", 30_000, 1, { only: [a, b], prefer });
        await repo.release(claim);
        return claim.contextId;
      };
      expect(await lagOf(a)).toBe(await lagOf(b));
      // As far behind: the older context first, or the preferred one.
      expect(await first()).toBe(a);
      expect(await first([])).toBe(a);
      expect(await first([await keyOf(b)])).toBe(b);
      // More than twice as far behind: taken before the preferred one, so nothing waits for ever.
      await db.run("UPDATE contexts SET evidence_version = resolved_version + ? WHERE uuid = ?", [2 * (await lagOf(b)) + 1, db.dialect.uuid(a)]);
      expect(await first([await keyOf(b)])).toBe(a);
    });

    it("a commit of several passes fences the one whose claim was taken over and commits the others", async () => {
      const [a, b] = [await newCase(), await newCase()];
      const repo = engine.pipeline.repo;
      const claims = await repo.claimMany("slow", 1, 2, { only: [a, b] });
      const loaded = await repo.loadPassInputs(claims);
      await new Promise((r) => setTimeout(r, 5));
      // Another worker takes over the first context once the slow one's lease ran out.
      const [takeover] = await repo.claimMany("fast", 30_000, 1, { only: [claims[0].contextId] });
      expect(takeover.takenOver).toBe(true);
      const items = claims.map((claim) => ({ claim, changes: passChanges(loaded.get(claim.contextKey)!, runPass(loaded.get(claim.contextKey)!.input)) }));
      const committed: string[] = [];
      const outcomes = await repo.commitPasses(items, async (_tx, pass) => void committed.push(pass.claim.contextId));
      expect(outcomes).toEqual([undefined, "resolved"]);
      expect(committed).toEqual([claims[1].contextId]);
      expect(await freshness(claims[0].contextId)).toBe("computing");
      expect(await freshness(claims[1].contextId)).toBe("resolved");
    });

    it("a pass over unchanged evidence writes nothing: records and evaluations keep their rows", async () => {
      const id = await newCase();
      await engine.runPipeline({ contextIds: [id] });
      const before = await rowsOf(id);
      expect(before.records.length).toBeGreaterThan(0);
      expect(before.evaluations.length).toBeGreaterThan(0);

      const repo = engine.pipeline.repo;
      const [claim] = await repo.claimMany("again", 30_000, 1, { only: [id] });
      // Claimable only when stale: made stale by hand, its evidence as it was.
      expect(claim).toBeUndefined();
      await engine.ctx.db.run(`UPDATE contexts SET freshness = 'stale' WHERE uuid = ?`, [engine.ctx.db.dialect.uuid(id)]);
      const [again] = await repo.claimMany("again", 30_000, 1, { only: [id] });
      const loaded = (await repo.loadPassInputs([again])).get(again.contextKey)!;
      const changes = passChanges(loaded, runPass(loaded.input));
      expect(changes.changedOutcomes).toEqual([]);
      expect(changes.writes).toEqual({ marks: [], records: [], linksGone: [], linksNew: [], evaluations: [], evaluationsGone: [] });
      await new Promise((r) => setTimeout(r, 5));
      expect(await repo.commitPasses([{ claim: again, changes }])).toEqual(["resolved"]);
      expect(await rowsOf(id)).toEqual(before);
    });
  });
}
