import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DdsError } from "../../src/contract/errors.js";
import { createLocalEngine, type LocalEngine } from "../../src/engine/local-engine.js";
import { openDatabase } from "../../src/engine/store/db.js";
import type { Store } from "../../src/engine/store/store.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { inspect } from "./support.js";

const PET = { name: "Pet", identity: ["petId"], fields: [{ name: "petId", type: "string" as const }, { name: "age", type: "integer" as const }] };

let cluster: PgCluster;
let url: string;
let store: Store;
let engine: LocalEngine;
let pet: string;
let outside: ReturnType<typeof inspect>;
beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase();
  store = await openDatabase(url);
  engine = createLocalEngine({ db: store, ownsStore: true });
  pet = (await engine.createModel(PET)).modelId;
  await engine.setModelStatus(pet, "active");
  outside = inspect(url);
}, 60_000);
afterAll(async () => {
  await outside?.end();
  await engine?.close();
  await cluster?.stop();
});

const item = (contextId: string, petId: string, age: number, sourceId = "s1") => ({ contextId, modelId: pet, sourceId, sourceType: "user", data: { petId, age } });
const countOutside = async (contextId: string) => Number((await outside.unsafe("SELECT COUNT(*)::int AS n FROM contributions k JOIN records r ON r.id = k.record_id JOIN contexts c ON c.id = r.context_id WHERE c.uuid = $1", [contextId]))[0].n);

describe("write groups on PostgreSQL", () => {
  it("commit together: nothing is visible elsewhere before the commit, every call after it; reads inside see the group's writes", async () => {
    const ctx = (await engine.createContext({ name: "grouped" })).contextId;
    const group = engine.writeGroup!();
    await engine.bulkCreateContributions({ items: [item(ctx, "p1", 1), item(ctx, "p2", 2)] }, { idempotencyKey: "g1-a" });
    await engine.bulkCreateContributions({ items: [item(ctx, "p1", 3)] }, { idempotencyKey: "g1-b" });
    // Read through the engine (the group's connection) and from another connection.
    expect((await engine.listContributions({ limit: 10 })).data.filter((c) => c.contextId === ctx)).toHaveLength(3);
    expect(await countOutside(ctx)).toBe(0);
    await group.commit();
    expect(await countOutside(ctx)).toBe(3);
    const statuses = (await outside.unsafe("SELECT k.status FROM contributions k JOIN records r ON r.id = k.record_id JOIN contexts c ON c.id = r.context_id WHERE c.uuid = $1 ORDER BY k.received_at, k.uuid", [ctx])).map((r) => r.status);
    expect(statuses.sort()).toEqual(["accepted", "accepted", "superseded"]);
    const [c] = await outside.unsafe("SELECT freshness FROM contexts WHERE uuid = $1", [ctx]);
    expect(c.freshness).toBe("stale");
  });

  it("a call that fails undoes only itself; a rollback undoes the whole group, keys included", async () => {
    const ctx = (await engine.createContext({ name: "partial" })).contextId;
    const group = engine.writeGroup!();
    await engine.bulkCreateContributions({ items: [item(ctx, "p1", 1)] }, { idempotencyKey: "g2-a" });
    // A transaction that writes, then throws: its savepoint is rolled back.
    await expect(
      store.sql.tx(async (tx) => {
        await tx.run("UPDATE contexts SET name = 'renamed' WHERE uuid = ?", [ctx]);
        throw new DdsError("invalid_request", "changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    await engine.bulkCreateContributions({ items: [item(ctx, "p2", 2)] }, { idempotencyKey: "g2-b" });
    await group.commit();
    expect(await countOutside(ctx)).toBe(2);
    expect((await outside.unsafe("SELECT name FROM contexts WHERE uuid = $1", [ctx]))[0].name).toBe("partial");

    const undone = engine.writeGroup!();
    await engine.bulkCreateContributions({ items: [item(ctx, "p3", 3)] }, { idempotencyKey: "g2-c" });
    await undone.rollback();
    expect(await countOutside(ctx)).toBe(2);
    expect(await outside.unsafe("SELECT key FROM idempotency_keys WHERE key = 'g2-c'")).toHaveLength(0);
    // The key is free again: sent after the rollback it runs (it is not replayed).
    const again = await engine.bulkCreateContributions({ items: [item(ctx, "p3", 3)] }, { idempotencyKey: "g2-c" });
    expect(again.summary.succeeded).toBe(1);
    expect(await countOutside(ctx)).toBe(3);
  });

  it("marks a context stale once per group, and again when it was resolved meanwhile in the same group", async () => {
    const ctx = (await engine.createContext({ name: "staleness" })).contextId;
    await outside.unsafe("UPDATE contexts SET freshness = 'resolved' WHERE uuid = $1", [ctx]);
    const version = async () => Number((await outside.unsafe("SELECT evidence_version AS v FROM contexts WHERE uuid = $1", [ctx]))[0].v);
    const before = await version();
    const group = engine.writeGroup!();
    await engine.bulkCreateContributions({ items: [item(ctx, "p1", 1)] }, { idempotencyKey: "g3-a" });
    await engine.bulkCreateContributions({ items: [item(ctx, "p2", 2)] }, { idempotencyKey: "g3-b" });
    // Something in the group resolves the context: the next evidence must make it stale again.
    await store.sql.run("UPDATE contexts SET freshness = 'resolved' WHERE uuid = ?", [ctx]);
    await engine.bulkCreateContributions({ items: [item(ctx, "p3", 3)] }, { idempotencyKey: "g3-c" });
    await group.commit();
    const [c] = await outside.unsafe("SELECT freshness FROM contexts WHERE uuid = $1", [ctx]);
    expect(c.freshness).toBe("stale");
    expect(await version()).toBe(before + 2);
  });
});
