import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createLocalEngine, type LocalEngine } from "../../src/engine/local-engine.js";
import { createPipeline } from "../../src/engine/pipeline/worker.js";
import { RULES, setupMortgageModels } from "../contract/mortgage-models.js";
import { freshnessOf, newMortgageCase } from "../helpers/mortgage-case.js";
import { uuidBytes } from "../../src/engine/store/values.js";

let engine: LocalEngine;
let models: Awaited<ReturnType<typeof setupMortgageModels>>;

const newCase = (amount?: number) => newMortgageCase(engine, models, amount);
const freshness = (id: string) => freshnessOf(engine, id);
const inContext = "(SELECT id FROM contexts WHERE uuid = ?)";
const counts = (id: string) =>
  engine.ctx.db.get<{ e: number; sha: string }>(
    `SELECT (SELECT COUNT(*) FROM evaluations WHERE context_id = ${inContext}) AS e, (SELECT sha256 FROM records WHERE context_id = ${inContext} LIMIT 1) AS sha`,
    [uuidBytes(id), uuidBytes(id)],
  );

beforeEach(async () => {
  engine = createLocalEngine({ db: join(mkdtempSync(join(tmpdir(), "ddsctl-worker-")), "dds.db") });
  models = await setupMortgageModels(engine);
  await engine.createRule(RULES.ltv as never);
});

describe("pipeline worker", () => {
  it("walks resolved → stale → computing → resolved", async () => {
    const id = await newCase();
    expect(await freshness(id)).toBe("stale");
    const pipeline = engine.pipeline;
    const claim = (await pipeline.repo.claim("w1", 30_000, { only: [id] }))!;
    expect(claim.contextId).toBe(id);
    expect(await freshness(id)).toBe("computing");
    expect(await pipeline.repo.claim("w2", 30_000, { only: [id] })).toBeUndefined();
    await pipeline.repo.release(claim);
    await engine.runPipeline({ contextIds: [id] });
    expect(await freshness(id)).toBe("resolved");
  });

  it("a crashed pass writes nothing and gives the claim back", async () => {
    const id = await newCase();
    const before = await counts(id);
    const claim = (await engine.pipeline.repo.claim("w1", 30_000, { only: [id] }))!;
    const loaded = (await engine.pipeline.repo.loadPassInput(claim))!;
    const { runPass } = await import("../../src/engine/pipeline/stages/index.js");
    const output = runPass(loaded.input);
    // The records are written first; the evaluation's trace then cannot be stored.
    output.evaluations[0].trace = { cannot: 1n } as never;
    await expect(engine.pipeline.repo.commitPass(claim, loaded, output)).rejects.toThrow();
    expect(await counts(id)).toEqual(before);
    expect(await freshness(id)).toBe("computing");
    await engine.pipeline.repo.release(claim);
    expect(await freshness(id)).toBe("stale");
  });

  it("an expired lease is taken over, and the old worker's late commit is discarded", async () => {
    const id = await newCase();
    const slow = createPipeline(engine.ctx.store, { leaseMs: 1, workerId: "slow" });
    const claim = (await slow.repo.claim("slow", 1, { only: [id] }))!;
    const input = (await slow.repo.loadPassInput(claim))!;
    await new Promise((r) => setTimeout(r, 5));
    expect((await engine.pipelineStatus()).expiredClaims).toBe(1);
    const result = await engine.runPipeline({ contextIds: [id] });
    expect(result.resolved).toEqual([id]);
    const { runPass } = await import("../../src/engine/pipeline/stages/index.js");
    expect(await slow.repo.commitPass(claim, input, runPass(input.input))).toBeUndefined();
    expect(await freshness(id)).toBe("resolved");
  });

  it("an observer hears each claim (a take-over flagged) and each pass's outcome: fenced for the worker whose claim was taken over", async () => {
    const id = await newCase();
    const heard: string[] = [];
    let rescuer: Promise<boolean> | undefined;
    const rescue = createPipeline(engine.ctx.store, {
      workerId: "rescue",
      observer: { claimed: (c) => heard.push(`rescue claimed takenOver=${c.takenOver}`), passed: (_c, outcome) => heard.push(`rescue ${outcome}`) },
    });
    const paused = createPipeline(engine.ctx.store, {
      workerId: "paused",
      observer: {
        claimed: (c) => {
          heard.push(`paused claimed takenOver=${c.takenOver}`);
          // While this pass runs, its lease runs out (a long pause) and another worker takes the
          // context over. Uncontended SQLite statements run at once, so both happen here.
          void engine.ctx.db.run("UPDATE contexts SET lease_expires_at = 1 WHERE id = ?", [c.contextKey]);
          rescuer = rescue.step({ only: [c.contextId] });
        },
        passed: (_c, outcome, seconds) => {
          expect(seconds).toBeGreaterThanOrEqual(0);
          heard.push(`paused ${outcome}`);
        },
      },
    });
    expect(await paused.step({ only: [id] })).toBe(true);
    expect(await rescuer).toBe(true);
    expect(heard.slice(0, 2)).toEqual(["paused claimed takenOver=false", "rescue claimed takenOver=true"]);
    expect(heard.slice(2).sort()).toEqual(["paused fenced", "rescue resolved"]);
    expect(await freshness(id)).toBe("resolved");
  });

  it("evidence arriving mid-pass leaves the context stale, and it is claimed again", async () => {
    const id = await newCase(200000);
    const claim = (await engine.pipeline.repo.claim("w1", 30_000, { only: [id] }))!;
    const input = (await engine.pipeline.repo.loadPassInput(claim))!;
    await engine.createContribution({ contextId: id, modelId: models.Loan, sourceId: "late", sourceType: "integration", data: { amount: 390000 } });
    const { runPass } = await import("../../src/engine/pipeline/stages/index.js");
    expect(await engine.pipeline.repo.commitPass(claim, input, runPass(input.input))).toBe("stale");
    expect(await freshness(id)).toBe("stale");
    await engine.runPipeline({ contextIds: [id] });
    expect(await freshness(id)).toBe("resolved");
    const ev = await engine.listContextEvaluations(id);
    expect(ev.data[0].evaluationTrace.inputs["Loan.ltv"]).toBeCloseTo(390000 / 400000, 10);
  });

  it("pipeline status counts each context once: the states add up to every context", async () => {
    const [done, stale, completed, archived, computing] = [await newCase(), await newCase(), await newCase(), await newCase(), await newCase()];
    await engine.runPipeline({ contextIds: [done, completed] });
    await engine.setContextStatus(completed, "completed");
    // Archived while stale: it stays so for good.
    await engine.setContextStatus(archived, "completed");
    await engine.setContextStatus(archived, "archived");
    // A rule change makes the contexts stale again, the completed one too.
    await engine.updateRule((await engine.listRules()).data[0].ruleId, { expression: { "<": [{ var: "Loan.ltv" }, 0.95] } });
    await engine.runPipeline({ contextIds: [done] });
    await engine.pipeline.repo.claim("w1", 30_000, { only: [computing] });
    expect([await freshness(done), await freshness(stale), await freshness(completed), await freshness(archived), await freshness(computing)]).toEqual(["resolved", "stale", "stale", "stale", "computing"]);
    const status = await engine.pipelineStatus();
    expect(status).toEqual({ contexts: { resolved: 1, stale: 1, computing: 1 }, waiting: 2, expiredClaims: 0 });
    const total = (await engine.listContexts({ limit: 500 })).data.length;
    expect(status.contexts.resolved + status.contexts.stale + status.contexts.computing + status.waiting).toBe(total);
  });

  it("completed contexts stay stale until reopened; archived ones are never processed", async () => {
    const id = await newCase();
    await engine.setContextStatus(id, "completed");
    const run = await engine.runPipeline({ contextIds: [id] });
    expect(run).toMatchObject({ passes: 0, pending: [id] });
    expect((await engine.pipelineStatus()).waiting).toBe(1);
    await engine.setContextStatus(id, "active");
    expect((await engine.runPipeline({ contextIds: [id] })).resolved).toEqual([id]);
    await engine.setContextStatus(id, "completed");
    await engine.updateRule((await engine.listRules()).data[0].ruleId, { expression: { "<": [{ var: "Loan.ltv" }, 0.9] } });
    expect(await freshness(id)).toBe("stale");
    await engine.setContextStatus(id, "archived");
    expect((await engine.runPipeline()).passes).toBe(0);
    expect(await freshness(id)).toBe("stale");
  });

  it("a second pass over the same evidence changes nothing", async () => {
    const id = await newCase();
    await engine.runPipeline({ contextIds: [id] });
    const snapshot = () => engine.ctx.db.all(`SELECT id, data, sha256, updated_at FROM records WHERE context_id = ${inContext} ORDER BY id`, [uuidBytes(id)]);
    const evals = () => engine.ctx.db.all(`SELECT * FROM evaluations WHERE context_id = ${inContext} ORDER BY id`, [uuidBytes(id)]);
    const [r1, e1] = [await snapshot(), await evals()];
    const key = (await engine.ctx.contexts.get(id))!.key;
    await engine.ctx.tx((s) => engine.ctx.store.markStale(s.db, [key]));
    await engine.runPipeline({ contextIds: [id] });
    expect(await snapshot()).toEqual(r1);
    expect(await evals()).toEqual(e1);
  });

  it("model, field and context-type changes mark the affected contexts stale", async () => {
    const id = await newCase();
    await engine.runPipeline({ contextIds: [id] });
    await engine.createField(models.Loan, { name: "term", type: "integer" });
    expect(await freshness(id)).toBe("stale");
    await engine.runPipeline({ contextIds: [id] });
    await engine.updateContext(id, { type: "remortgage" });
    expect(await freshness(id)).toBe("stale");
  });
});
