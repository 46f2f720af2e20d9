import { describe, expect, it } from "vitest";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { openSqliteDatabase, type SqliteStore } from "../../src/engine/store/db.js";
import { createPipelineRepo } from "../../src/engine/store/pipeline-repo.js";
import { uuidBytes } from "../../src/engine/store/values.js";
import { setupMortgageModels } from "../contract/mortgage-models.js";

/** The context's evidence version and freshness, read from the table. */
function contextRow(engine: ReturnType<typeof createLocalEngine>, contextId: string) {
  const raw = (engine.ctx.store as SqliteStore).raw;
  return raw.prepare("SELECT evidence_version AS v, freshness FROM contexts WHERE uuid = ?").get(uuidBytes(contextId)) as { v: number; freshness: string };
}

async function engineWithContext() {
  const engine = createLocalEngine({ db: openSqliteDatabase(":memory:") });
  const models = await setupMortgageModels(engine);
  const { contextId } = await engine.createContext({});
  const item = (n: number, income: unknown = 1000) => ({ contextId, modelId: models.Employment, sourceId: `s${n}`, sourceType: "document", data: { employmentId: `e${n}`, monthlyIncome: income } });
  const count = async () => (await engine.listContributions({ filters: [{ field: "contextId", op: "eq", value: contextId }] })).data.length;
  return { engine, item, count, contextId };
}

describe("write groups (local imports)", () => {
  it("commit keeps every call; a failing call inside still undoes only itself", async () => {
    const { engine, item, count } = await engineWithContext();
    const group = engine.writeGroup!();
    const res = await engine.bulkCreateContributions({ items: [item(1), item(2, "lots")] });
    await engine.bulkCreateContributions({ items: [item(3)] });
    expect(res.items.map((i) => i.status)).toEqual([201, 422]);
    await group.commit();
    expect(await count()).toBe(2);
  });

  it("a model changed inside the group is seen by its next calls (the group keeps model stamps, every model write forgets them)", async () => {
    const { engine, item, contextId } = await engineWithContext();
    const models = await engine.listModels({});
    const employment = models.models.find((m) => m.name === "Employment")!;
    const group = engine.writeGroup!();
    expect((await engine.bulkCreateContributions({ items: [item(1)] })).items[0].status).toBe(201);
    // A field added in the group: the next call checks the data against the model with it.
    await engine.createField(employment.modelId, { name: "bonus", type: "number" });
    const withBonus = { contextId, modelId: employment.modelId, sourceId: "s2", sourceType: "document", data: { employmentId: "e2", monthlyIncome: 10, bonus: 5 } };
    expect((await engine.bulkCreateContributions({ items: [withBonus] })).items[0].status).toBe(201);
    // Archived in the group: the next call is refused as writing into a model not active.
    await engine.setModelStatus(employment.modelId, "archived");
    const refused = await engine.bulkCreateContributions({ items: [item(3)] });
    expect(refused.items[0].status).toBe(409);
    await group.commit();
  });

  it("a later call of the group supersedes, or answers unchanged, what an earlier call of it wrote for the same record and source", async () => {
    const { engine, item, contextId } = await engineWithContext();
    const raw = (engine.ctx.store as SqliteStore).raw;
    const statuses = () => raw.prepare("SELECT status, supersedes FROM contributions ORDER BY id").all() as { status: string; supersedes: number | null }[];
    const group = engine.writeGroup!();
    const first = await engine.bulkCreateContributions({ items: [item(1, 1000)] });
    const second = await engine.bulkCreateContributions({ items: [item(1, 2000)] });
    expect(second.items[0].status).toBe(201);
    expect((second.items[0].data as { supersedes: string }).supersedes).toBe((first.items[0].data as { contributionId: string }).contributionId);
    // The same evidence again, a call later: the answer is the contribution that says it.
    const again = await engine.bulkCreateContributions({ items: [item(1, 2000)] });
    expect(again.items[0].status).toBe(200);
    expect(again.items[0].data).toEqual(second.items[0].data);
    // A failing call in between forgets what the group kept: the next one reads the table.
    await expect(engine.bulkCreateContributions({ items: [] })).rejects.toThrow();
    const third = await engine.bulkCreateContributions({ items: [item(1, 3000)] });
    expect((third.items[0].data as { supersedes: string }).supersedes).toBe((second.items[0].data as { contributionId: string }).contributionId);
    await group.commit();
    expect(statuses().map((r) => r.status)).toEqual(["superseded", "superseded", "accepted"]);
    const records = await engine.listRecords({ filters: [{ field: "contextId", op: "eq", value: contextId }] });
    expect(records.data).toHaveLength(1);
  });

  it("rollback undoes the whole group", async () => {
    const { engine, item, count } = await engineWithContext();
    const group = engine.writeGroup!();
    await engine.bulkCreateContributions({ items: [item(1), item(2)] });
    group.rollback();
    expect(await count()).toBe(0);
  });

  it("a group the database already rolled back cannot be committed as if kept", async () => {
    const { engine, item } = await engineWithContext();
    const group = engine.writeGroup!();
    await engine.bulkCreateContributions({ items: [item(1)] });
    (engine.ctx.store as SqliteStore).raw.exec("ROLLBACK"); // what SQLite does on its own after a full disk
    await expect(group.commit()).rejects.toThrow(/rolled back/);
  });

  it("commits only between calls: never in the middle of one", async () => {
    const { engine, item, count } = await engineWithContext();
    const group = engine.writeGroup!();
    const running = engine.bulkCreateContributions({ items: [item(1)] });
    // The call has started and holds the connection until it ends.
    await expect(group.commit()).rejects.toThrow(/while a call is running/);
    await running;
    await group.commit();
    expect(await count()).toBe(1);
  });

  it("a read outside any transaction never sees another call's uncommitted rows", async () => {
    const { engine, item, count } = await engineWithContext();
    const writing = engine.bulkCreateContributions({ items: [item(1)] });
    // Issued while the write transaction is open: it waits for the commit.
    expect(await count()).toBe(1);
    await writing;
  });

  it("forgets the context states it read once a context's status changes inside it", async () => {
    const { engine, item, count, contextId } = await engineWithContext();
    const group = engine.writeGroup!();
    expect((await engine.bulkCreateContributions({ items: [item(1)] })).items[0].status).toBe(201);
    await engine.setContextStatus(contextId, "completed");
    const res = await engine.bulkCreateContributions({ items: [item(2)] });
    expect(res.items[0].status).toBe(409);
    await group.commit();
    expect(await count()).toBe(1);
  });

  it("bumps a context once per group, and again after a pass claimed it inside the group", async () => {
    const { engine, item, contextId } = await engineWithContext();
    const group = engine.writeGroup!();
    await engine.bulkCreateContributions({ items: [item(1)] });
    await engine.bulkCreateContributions({ items: [item(2)] });
    expect(contextRow(engine, contextId)).toEqual({ v: 1, freshness: "stale" });
    const claim = await createPipelineRepo(engine.ctx.store.sql).claim("w1", 60_000, { only: [contextId] });
    expect(claim?.evidenceVersion).toBe(1);
    // Evidence after the claim must move the version on, or the pass would commit as resolved.
    await engine.bulkCreateContributions({ items: [item(3)] });
    expect(contextRow(engine, contextId)).toEqual({ v: 2, freshness: "computing" });
    await group.commit();
  });
});
