import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LocalEngine } from "../../src/engine/local-engine.js";
import { RULES, setupMortgageModels } from "../contract/mortgage-models.js";
import { outboxRows, tempDb } from "./support.js";

/**
 * The outbox is written inside the transaction of the change that causes the event. Each
 * test makes that transaction throw *after* the event was written (a listener further
 * down the same transaction fails) and checks both the change and its delivery vanished.
 */
describe("outbox atomicity", () => {
  let db: ReturnType<typeof tempDb>;
  let s: LocalEngine;
  let models: Awaited<ReturnType<typeof setupMortgageModels>>;
  let contextId: string;
  let failPass = false;
  const boom = () => new Error("boom after the event was written");

  beforeEach(async () => {
    db = tempDb();
    failPass = false;
    s = db.open({
      pipeline: {
        onPass: async () => {
          if (failPass) throw boom();
        },
      },
    });
    models = await setupMortgageModels(s);
    await s.createRule(RULES.ltv as never);
    await s.createWebhook({ url: "https://example.com/all", events: ["context.stale", "context.resolved", "context.status_changed", "evaluation.changed"] });
    contextId = (await s.createContext({ name: "case-1", type: "mortgage" })).contextId;
  });
  afterEach(() => db.cleanup());

  it("a failed lifecycle move leaves neither the move nor its context.status_changed", async () => {
    const listener = s.ctx.hooks.onContextStatusChange;
    s.ctx.hooks.onContextStatusChange = async (sc, c, from) => {
      await listener(sc, c, from);
      throw boom();
    };
    await expect(s.setContextStatus(contextId, "completed")).rejects.toThrow("boom");
    expect((await s.getContext(contextId)).status).toBe("active");
    expect(outboxRows(s)).toHaveLength(0);
    s.ctx.hooks.onContextStatusChange = listener;
    await s.setContextStatus(contextId, "completed");
    expect(outboxRows(s).map((r) => r.eventType)).toEqual(["context.status_changed"]);
  });

  it("a failed change that made a context stale leaves neither the staleness nor its context.stale", async () => {
    const listener = s.ctx.hooks.onContextTypeChange;
    s.ctx.hooks.onContextTypeChange = async (sc, id) => {
      await listener(sc, id);
      throw boom();
    };
    await expect(s.updateContext(contextId, { type: "remortgage" })).rejects.toThrow("boom");
    expect(await s.getContext(contextId)).toMatchObject({ type: "mortgage", freshness: "resolved" });
    expect(outboxRows(s)).toHaveLength(0);
  });

  it("evidence and its context.stale commit together (a rolled-back ingest leaves no row)", async () => {
    const body = { contextId, modelId: models.Loan, sourceId: "f", sourceType: "document" as const, data: { amount: 5000 } };
    // Inside a write group the engine's own transaction is a savepoint of the group's,
    // which is then rolled back.
    const group = s.writeGroup!();
    await s.createContribution(body);
    group.rollback();
    expect((await s.listContributions()).data).toHaveLength(0);
    expect(outboxRows(s)).toHaveLength(0);
    await s.createContribution(body);
    expect(outboxRows(s).map((r) => r.eventType)).toEqual(["context.stale"]);
  });

  it("a pass whose commit fails leaves neither evaluations nor context.resolved / evaluation.changed", async () => {
    await s.createContribution({ contextId, modelId: models.Loan, sourceId: "f", sourceType: "document", data: { amount: 240000, propertyValue: 300000 } });
    failPass = true;
    await expect(s.runPipeline({ contextIds: [contextId] })).rejects.toThrow("boom");
    expect((await s.getContext(contextId)).freshness).toBe("stale");
    expect((await s.listContextEvaluations(contextId)).data).toHaveLength(0);
    expect(outboxRows(s).map((r) => r.eventType)).toEqual(["context.stale"]);
    failPass = false;
    await s.runPipeline({ contextIds: [contextId] });
    expect(outboxRows(s).map((r) => r.eventType)).toEqual(["context.stale", "context.resolved"]);
  });
});
