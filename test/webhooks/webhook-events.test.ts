import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LocalEngine } from "../../src/engine/local-engine.js";
import { createPipeline } from "../../src/engine/pipeline/worker.js";
import { withWebhookEvents } from "../../src/engine/webhooks/index.js";
import { RULES, setupMortgageModels } from "../contract/mortgage-models.js";
import { outboxRows, tempDb } from "./support.js";

const ALL = ["context.stale", "context.resolved", "context.status_changed", "evaluation.changed"] as const;

describe("webhook events from real flows", () => {
  let db: ReturnType<typeof tempDb>;
  let s: LocalEngine;
  let models: Awaited<ReturnType<typeof setupMortgageModels>>;
  let hookId: string;
  let contextId: string;
  let ltvRuleId: string;

  const loan = (sourceId: string, data: Record<string, unknown>) => s.createContribution({ contextId, modelId: models.Loan, sourceId, sourceType: "document", data });
  const events = () => outboxRows(s, hookId).map((r) => r.payload);

  beforeEach(async () => {
    db = tempDb();
    s = db.open();
    models = await setupMortgageModels(s);
    ltvRuleId = (await s.createRule(RULES.ltv as never)).ruleId;
    hookId = (await s.createWebhook({ url: "https://example.com/all", events: [...ALL] })).webhookId;
    contextId = (await s.createContext({ name: "case-1", type: "mortgage" })).contextId;
  });
  afterEach(() => db.cleanup());

  it("context.stale once when evidence turns a resolved context stale, context.resolved when a pass converges", async () => {
    await loan("app-form", { amount: 240000, propertyValue: 300000 });
    await loan("valuation", { propertyValue: 310000 }); // already stale: no second event
    expect(events()).toEqual([{ type: "context.stale", timestamp: expect.stringMatching(/Z$/), data: { contextId, workspace: "default", freshness: "stale" } }]);
    await s.runPipeline({ contextIds: [contextId] });
    const resolved = events()[1];
    const context = await s.getContext(contextId);
    expect(resolved).toEqual({ type: "context.resolved", timestamp: expect.any(String), data: { contextId, workspace: "default", freshness: "resolved", resolvedAt: context.resolvedAt } });
    // First evaluations are not flips: nothing else was emitted.
    expect(events()).toHaveLength(2);
  });

  it("evaluation.changed per flipped rule, with the rule, evaluation and both outcomes", async () => {
    await loan("app-form", { amount: 240000, propertyValue: 300000 });
    await s.runPipeline({ contextIds: [contextId] });
    expect((await s.getContextEvaluation(contextId, ltvRuleId)).outcome).toBe(true);
    await loan("app-form", { amount: 290000, propertyValue: 300000 }); // supersedes: ltv 0.97 > 0.8
    await s.runPipeline({ contextIds: [contextId] });
    const evaluation = await s.getContextEvaluation(contextId, ltvRuleId);
    expect(evaluation.outcome).toBe(false);
    expect(events().map((e) => e.type)).toEqual(["context.stale", "context.resolved", "context.stale", "evaluation.changed", "context.resolved"]);
    expect(events()[3].data).toEqual({
      contextId,
      workspace: "default",
      evaluationId: evaluation.evaluationId,
      ruleId: ltvRuleId,
      ruleName: "ltv-limit",
      outcome: false,
      previousOutcome: true,
    });
  });

  it("context.status_changed on every lifecycle move, with from and to", async () => {
    await s.setContextStatus(contextId, "completed");
    await s.setContextStatus(contextId, "active");
    await s.setContextStatus(contextId, "completed");
    await s.setContextStatus(contextId, "archived");
    expect(events().map((e) => [e.data.from, e.data.to])).toEqual([
      ["active", "completed"],
      ["completed", "active"],
      ["active", "completed"],
      ["completed", "archived"],
    ]);
    expect(events()[0]).toMatchObject({ type: "context.status_changed", data: { contextId, workspace: "default" } });
    // An invalid move changes nothing and emits nothing.
    await expect(s.setContextStatus(contextId, "active")).rejects.toMatchObject({ status: 422 });
    expect(events()).toHaveLength(4);
  });

  it("context.stale when a definition change reaches a resolved context (rule change, context type)", async () => {
    await loan("app-form", { amount: 240000, propertyValue: 300000 });
    await s.runPipeline({ contextIds: [contextId] });
    await s.updateRule(ltvRuleId, { expression: { "<=": [{ var: "Loan.ltv" }, 0.9] } });
    expect(events().map((e) => e.type)).toEqual(["context.stale", "context.resolved", "context.stale"]);
    await s.runPipeline({ contextIds: [contextId] });
    await s.updateContext(contextId, { type: "remortgage" });
    expect(events().map((e) => e.type)).toEqual(["context.stale", "context.resolved", "context.stale", "context.resolved", "context.stale"]);
  });

  it("delivers only the subscribed event types, one row per subscribed webhook, each with its own message id", async () => {
    const onlyResolved = (await s.createWebhook({ url: "https://example.com/resolved", events: ["context.resolved"] })).webhookId;
    await loan("app-form", { amount: 240000, propertyValue: 300000 });
    await s.runPipeline({ contextIds: [contextId] });
    expect(outboxRows(s, onlyResolved).map((r) => r.eventType)).toEqual(["context.resolved"]);
    const resolvedRows = outboxRows(s).filter((r) => r.eventType === "context.resolved");
    expect(resolvedRows).toHaveLength(2);
    expect(resolvedRows[0].payload).toEqual(resolvedRows[1].payload);
    expect(resolvedRows[0].messageId).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(resolvedRows[0].messageId).not.toBe(resolvedRows[1].messageId);
    expect(resolvedRows.every((r) => r.status === "pending" && r.attempts === 0)).toBe(true);
  });

  it("a standalone pipeline (the one `serve` runs) emits pass events through withWebhookEvents", async () => {
    await loan("app-form", { amount: 240000, propertyValue: 300000 });
    const seen: string[] = [];
    const worker = createPipeline(s.ctx.store, withWebhookEvents({ onPass: async (_tx, e) => void seen.push(e.contextId) }));
    expect(await worker.step()).toBe(true);
    expect(seen).toEqual([contextId]);
    expect(events().map((e) => e.type)).toEqual(["context.stale", "context.resolved"]);
  });

  it("a deleted webhook receives nothing more", async () => {
    await s.deleteWebhook(hookId);
    await loan("app-form", { amount: 240000, propertyValue: 300000 });
    await s.runPipeline({ contextIds: [contextId] });
    expect(outboxRows(s)).toHaveLength(0);
  });
});

describe("workspace isolation", () => {
  it("only webhooks of the event's workspace receive it, even when one worker serves both", async () => {
    const db = tempDb();
    try {
      const a = db.open({ workspace: "a" });
      const b = db.open({ workspace: "b" });
      const hookA = (await a.createWebhook({ url: "https://a.example.com", events: [...ALL] })).webhookId;
      const hookB = (await b.createWebhook({ url: "https://b.example.com", events: [...ALL] })).webhookId;
      const modelsA = await setupMortgageModels(a);
      const ctxA = (await a.createContext({ name: "a-case" })).contextId;
      await a.createContribution({ contextId: ctxA, modelId: modelsA.Loan, sourceId: "f", sourceType: "document", data: { amount: 5000 } });
      // Workspace b's engine runs the worker step over every workspace (as `serve` does).
      while (await b.pipeline.step()) {
        /* drain */
      }
      await a.setContextStatus(ctxA, "completed");
      expect(outboxRows(a, hookA).map((r) => r.eventType)).toEqual(["context.stale", "context.resolved", "context.status_changed"]);
      expect(outboxRows(a, hookA).every((r) => r.workspace === "a" && r.payload.data.workspace === "a")).toBe(true);
      expect(outboxRows(b, hookB)).toHaveLength(0);
      expect((await b.listWebhookDeliveries(hookB)).data).toHaveLength(0);
    } finally {
      await db.cleanup();
    }
  });
});
