import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DdsError } from "../../src/contract/errors.js";
import { createLocalEngine, type LocalEngine } from "../../src/engine/local-engine.js";
import { openDatabase } from "../../src/engine/store/db.js";
import type { ContributionInsert, RecordInsert } from "../../src/engine/store/evidence-repo.js";
import type { Sql } from "../../src/engine/store/sql.js";
import type { Store } from "../../src/engine/store/store.js";
import { newId } from "../../src/util/ids.js";
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
    // Twice marked; and resolved by the group's own pass as it commits (loaded means resolved).
    expect(await version()).toBe(before + 2);
    const [c] = await outside.unsafe("SELECT freshness, resolved_version AS r FROM contexts WHERE uuid = $1", [ctx]);
    expect(c.freshness).toBe("resolved");
    expect(Number(c.r)).toBe(before + 2);
  });
});

// A write group holds its calls' records and contributions and copies them in with COPY
// (pg-ingest-buffer.ts): these check that what ends in the tables is what the same calls
// store one transaction at a time, through every path that must see or undo held rows.


/**
 * A context's evidence as it can be compared across contexts: per contribution (in the
 * order received) its pet, source, age, status and the position of the one it supersedes;
 * and per live record its pet.
 */
async function evidenceOf(contextId: string) {
  const rows = await outside.unsafe(
    `SELECT k.uuid::text AS id, r.identity_key AS pet, k.source_id AS source, k.data::text AS data, k.status, p.uuid::text AS supersedes
     FROM contributions k JOIN records r ON r.id = k.record_id JOIN contexts c ON c.id = r.context_id LEFT JOIN contributions p ON p.id = k.supersedes
     WHERE c.uuid = $1 ORDER BY k.received_at, k.uuid`,
    [contextId],
  );
  const position = new Map(rows.map((r, i) => [r.id, i]));
  const records = await outside.unsafe(
    "SELECT r.identity_key AS pet, r.deleted_at IS NOT NULL AS deleted FROM records r JOIN contexts c ON c.id = r.context_id WHERE c.uuid = $1 ORDER BY r.identity_key, r.deleted_at NULLS FIRST",
    [contextId],
  );
  return {
    contributions: rows.map((r) => ({ pet: r.pet, source: r.source, data: r.data, status: r.status, supersedes: r.supersedes === null ? null : position.get(r.supersedes) })),
    records: records.map((r) => `${r.pet}${r.deleted ? " (deleted)" : ""}`),
  };
}

/** Keys the store's rows refer to: the workspace, a context and the Pet model. */
async function keysOf(contextId: string) {
  const [row] = await outside.unsafe(
    "SELECT c.id AS context, m.id AS model, w.name AS workspace FROM contexts c JOIN workspaces w ON w.id = c.workspace_id, models m WHERE c.uuid = $1 AND m.uuid = $2",
    [contextId, pet],
  );
  return { context: Number(row.context), model: Number(row.model), workspace: row.workspace as string };
}

type Keys = Awaited<ReturnType<typeof keysOf>>;

/** Inserts, through the store's ingest, a new record of `petId` (returned with its key). */
async function insertRecord(tx: Sql, keys: Keys, petId: string): Promise<RecordInsert> {
  const row: RecordInsert = { id: newId(), contextKey: keys.context, modelKey: keys.model, identityKey: JSON.stringify([petId]), now: new Date().toISOString(), createdBy: "test" };
  await store.ingest.insertRecords(tx, keys.workspace, [row]);
  return row;
}

/** A contribution of source s1 to a record, superseding the stored one `supersedesKey` names. */
const contribution = (recordKey: number, supersedesKey: number | null = null): ContributionInsert => ({
  id: newId(),
  recordKey,
  sourceId: "s1",
  sourceType: "user",
  data: "{}",
  fieldConfidences: null,
  status: "accepted",
  supersedesKey,
  supersedesId: null,
  observedAt: null,
  receivedAt: new Date().toISOString(),
  createdBy: "test",
});

/** The calls both paths are compared on: repeated sources and records, across three calls. */
const CALLS = (ctx: string) => [
  [item(ctx, "p1", 1), item(ctx, "p2", 1), item(ctx, "p1", 2), item(ctx, "p1", 3, "s2")],
  [item(ctx, "p2", 2), item(ctx, "p3", 1), item(ctx, "p1", 4)],
  [item(ctx, "p1", 5), item(ctx, "p3", 2, "s2"), item(ctx, "p3", 3, "s2")],
];

describe("a write group's rows, copied in at its commit", () => {
  it("end as the same calls store them one transaction at a time: records by identity, superseding in and across calls", async () => {
    const plain = (await engine.createContext({ name: "plain" })).contextId;
    const grouped = (await engine.createContext({ name: "grouped" })).contextId;
    const answers: unknown[] = [];
    for (const [i, items] of CALLS(plain).entries()) answers.push(await engine.bulkCreateContributions({ items }, { idempotencyKey: `plain-${i}` }));
    const group = engine.writeGroup!();
    const inGroup: unknown[] = [];
    for (const [i, items] of CALLS(grouped).entries()) inGroup.push(await engine.bulkCreateContributions({ items }, { idempotencyKey: `grouped-${i}` }));
    // Nothing is in the tables before the commit; reads through the engine see it all.
    expect(await outside.unsafe("SELECT 1 FROM contributions k JOIN records r ON r.id = k.record_id JOIN contexts c ON c.id = r.context_id WHERE c.uuid = $1", [grouped])).toHaveLength(0);
    expect((await engine.listContributions({ limit: 100 })).data.filter((c) => c.contextId === grouped)).toHaveLength(10);
    await group.commit();
    const want = await evidenceOf(plain);
    expect(want.contributions.filter((c) => c.status === "accepted")).toHaveLength(5);
    expect(await evidenceOf(grouped)).toEqual(want);
    // The answers say the same (ids and times aside).
    const shape = (res: unknown) => (res as { items: { status: number; data?: { status: string; supersedes: string | null } }[] }).items.map((i) => [i.status, i.data?.status, i.data?.supersedes === null]);
    expect(inGroup.map(shape)).toEqual(answers.map(shape));
  });

  it("supersede rows of earlier groups, and replay a key sent twice in one group from the rows it holds", async () => {
    const ctx = (await engine.createContext({ name: "across" })).contextId;
    const first = engine.writeGroup!();
    await engine.bulkCreateContributions({ items: [item(ctx, "p1", 1)] }, { idempotencyKey: "across-1" });
    await first.commit();
    const second = engine.writeGroup!();
    const answer = await engine.bulkCreateContributions({ items: [item(ctx, "p1", 2), item(ctx, "p2", 1)] }, { idempotencyKey: "across-2" });
    const replay = await engine.bulkCreateContributions({ items: [item(ctx, "p1", 2), item(ctx, "p2", 1)] }, { idempotencyKey: "across-2" });
    expect(replay).toEqual(answer);
    await second.commit();
    const { contributions } = await evidenceOf(ctx);
    expect(contributions.map((c) => [c.pet, c.status, c.supersedes])).toEqual([
      ['["p1"]', "superseded", null],
      ['["p1"]', "accepted", 0],
      ['["p2"]', "accepted", null],
    ]);
  });

  it("bind an explicit recordId to a record made earlier in the group, and never to one deleted in it", async () => {
    const ctx = (await engine.createContext({ name: "explicit" })).contextId;
    const group = engine.writeGroup!();
    const made = await engine.bulkCreateContributions({ items: [item(ctx, "p1", 1), item(ctx, "p2", 1)] }, { idempotencyKey: "explicit-1" });
    const [p1, p2] = made.items.map((i) => (i.data as { recordId: string }).recordId);
    await engine.bulkCreateContributions({ items: [{ ...item(ctx, "p1", 2, "s2"), recordId: p1 }] }, { idempotencyKey: "explicit-2" });
    await engine.deleteRecord(p2);
    const again = await engine.bulkCreateContributions({ items: [item(ctx, "p2", 2)] }, { idempotencyKey: "explicit-3" });
    expect((again.items[0].data as { recordId: string }).recordId).not.toBe(p2);
    await group.commit();
    const { contributions, records } = await evidenceOf(ctx);
    expect(records).toEqual(['["p1"]', '["p2"]', '["p2"] (deleted)']);
    expect(contributions.map((c) => [c.pet, c.source, c.status])).toEqual([
      ['["p1"]', "s1", "accepted"],
      ['["p2"]', "s1", "accepted"],
      ['["p1"]', "s2", "accepted"],
      ['["p2"]', "s1", "accepted"],
    ]);
  });

  it("drop what a failed call held, hold again what it copied of earlier calls, and undo its superseding", async () => {
    const ctx = (await engine.createContext({ name: "failing" })).contextId;
    const keys = await keysOf(ctx);
    const group = engine.writeGroup!();
    const made = await engine.bulkCreateContributions({ items: [item(ctx, "p1", 1)] }, { idempotencyKey: "failing-1" });
    const first = made.items[0].data as { contributionId: string; recordId: string };
    // A call that binds, supersedes and inserts through the store, makes the group copy
    // what it holds (a read of the tables), then fails.
    await expect(
      store.sql.tx(async (tx) => {
        const found = await store.ingest.findRecords(tx, [{ contextKey: keys.context, modelKey: keys.model, identityKey: '["p1"]' }]);
        const record = [...found.values()][0];
        expect(record.id).toBe(first.recordId);
        const heads = await store.ingest.acceptedFromSources(tx, [{ recordKey: record.key, sourceId: "s1" }]);
        const head = [...heads.values()][0];
        expect(head.id).toBe(first.contributionId);
        await store.ingest.markSuperseded(tx, [head.key]);
        const created = await insertRecord(tx, keys, "p9");
        await store.ingest.insertContributions(tx, keys.workspace, [contribution(record.key, head.key), contribution(created.key!)]);
        expect(Number((await tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM contributions WHERE record_id = ?", [record.key]))!.n)).toBe(2);
        throw new DdsError("invalid_request", "changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    // The head is the first call's again, and p9 was never made.
    await engine.bulkCreateContributions({ items: [item(ctx, "p1", 2), item(ctx, "p9", 1)] }, { idempotencyKey: "failing-3" });
    await group.commit();
    const { contributions, records } = await evidenceOf(ctx);
    expect(records).toEqual(['["p1"]', '["p9"]']);
    expect(contributions.map((c) => [c.pet, c.status, c.supersedes])).toEqual([
      ['["p1"]', "superseded", null],
      ['["p1"]', "accepted", 0],
      ['["p9"]', "accepted", null],
    ]);
  });

  it("write straight to the tables inside a nested savepoint (a bulk record update), whose failed items leave nothing", async () => {
    const ctx = (await engine.createContext({ name: "nested" })).contextId;
    const group = engine.writeGroup!();
    const made = await engine.bulkCreateContributions({ items: [item(ctx, "p1", 1), item(ctx, "p2", 1)] }, { idempotencyKey: "nested-1" });
    const [p1, p2] = made.items.map((i) => (i.data as { recordId: string }).recordId);
    const updated = await engine.bulkUpdateRecords(
      { items: [{ recordId: p1, data: { age: 7 } }, { recordId: p2, data: { age: "old" } }, { recordId: p2, data: { age: 8 } }] },
      { idempotencyKey: "nested-2" },
    );
    expect(updated.items.map((i) => i.status)).toEqual([200, 422, 200]);
    await engine.bulkUpdateRecords({ items: [{ recordId: p1, data: { age: 9 } }] }, { idempotencyKey: "nested-3" });
    await engine.bulkCreateContributions({ items: [item(ctx, "p2", 3)] }, { idempotencyKey: "nested-4" });
    await group.commit();
    const { contributions } = await evidenceOf(ctx);
    expect(contributions.map((c) => [c.pet, c.source, c.status])).toEqual([
      ['["p1"]', "s1", "accepted"],
      ['["p2"]', "s1", "superseded"],
      ['["p1"]', "manual-update", "superseded"],
      ['["p2"]', "manual-update", "accepted"],
      ['["p1"]', "manual-update", "accepted"],
      ['["p2"]', "s1", "accepted"],
    ]);
  });

  it("leave nothing of a nested savepoint that rolls back after inserting", async () => {
    const ctx = (await engine.createContext({ name: "inner" })).contextId;
    const keys = await keysOf(ctx);
    const group = engine.writeGroup!();
    await engine.bulkCreateContributions({ items: [item(ctx, "p1", 1)] }, { idempotencyKey: "inner-1" });
    const insert = async (tx: Sql, petId: string) => {
      const created = await insertRecord(tx, keys, petId);
      await store.ingest.insertContributions(tx, keys.workspace, [contribution(created.key!)]);
    };
    await store.sql.tx(async (tx) => {
      await expect(
        tx.tx(async (inner) => {
          await insert(inner, "p8");
          throw new DdsError("invalid_request", "not this one");
        }),
      ).rejects.toThrow("not this one");
      await insert(tx, "p7");
    });
    await engine.bulkCreateContributions({ items: [item(ctx, "p1", 2), item(ctx, "p7", 1)] }, { idempotencyKey: "inner-3" });
    await group.commit();
    const { contributions, records } = await evidenceOf(ctx);
    expect(records).toEqual(['["p1"]', '["p7"]']);
    expect(contributions.map((c) => [c.pet, c.status, c.supersedes])).toEqual([
      ['["p1"]', "superseded", null],
      ['["p7"]', "superseded", null],
      ['["p1"]', "accepted", 0],
      ['["p7"]', "accepted", 1],
    ]);
  });

  it("ask the database again for a context another writer changed between groups", async () => {
    const ctx = (await engine.createContext({ name: "shared" })).contextId;
    const first = engine.writeGroup!();
    // New identities of a context only this store has written to need no lookup...
    await engine.bulkCreateContributions({ items: [item(ctx, "p1", 1)] }, { idempotencyKey: "shared-1" });
    await engine.bulkCreateContributions({ items: [item(ctx, "p2", 1)] }, { idempotencyKey: "shared-2" });
    await first.commit();
    // ...until another writer (a node without the store's knowledge) adds one.
    const other = createLocalEngine({ db: await openDatabase(url), ownsStore: true });
    try {
      await other.bulkCreateContributions({ items: [item(ctx, "p3", 1)] });
    } finally {
      await other.close();
    }
    const second = engine.writeGroup!();
    await engine.bulkCreateContributions({ items: [item(ctx, "p4", 1)] }, { idempotencyKey: "shared-3" });
    await engine.bulkCreateContributions({ items: [item(ctx, "p3", 2), item(ctx, "p1", 2)] }, { idempotencyKey: "shared-4" });
    await second.commit();
    const { contributions, records } = await evidenceOf(ctx);
    expect(records).toEqual(['["p1"]', '["p2"]', '["p3"]', '["p4"]']);
    expect(contributions.map((c) => [c.pet, c.status, c.supersedes])).toEqual([
      ['["p1"]', "superseded", null],
      ['["p2"]', "accepted", null],
      ['["p3"]', "superseded", null],
      ['["p4"]', "accepted", null],
      ['["p3"]', "accepted", 2],
      ['["p1"]', "accepted", 0],
    ]);
  });

  it("fail the commit with the database's reason when their COPY fails, keeping nothing of the group", async () => {
    const ctx = (await engine.createContext({ name: "clash" })).contextId;
    const group = engine.writeGroup!();
    const made = await engine.bulkCreateContributions({ items: [item(ctx, "p1", 1), item(ctx, "p2", 1)] }, { idempotencyKey: "clash-1" });
    // Another writer takes the id of a record the group holds (ids are made in the process).
    const taken = (made.items[1].data as { recordId: string }).recordId;
    await outside.unsafe(
      `INSERT INTO records (uuid, workspace_id, context_id, model_id, identity_key, created_by, created_at, updated_at)
       SELECT $1, workspace_id, id, 0, '["elsewhere"]', 'test', now(), now() FROM contexts WHERE uuid = $2`,
      [taken, ctx],
    );
    await expect(group.commit()).rejects.toThrow(/records_uuid/);
    expect((await evidenceOf(ctx)).contributions).toEqual([]);
    expect(await outside.unsafe("SELECT key FROM idempotency_keys WHERE key = 'clash-1'")).toHaveLength(0);
  });

  it("roll back with the group: nothing held reaches the tables", async () => {
    const ctx = (await engine.createContext({ name: "undone" })).contextId;
    const group = engine.writeGroup!();
    await engine.bulkCreateContributions({ items: [item(ctx, "p1", 1)] }, { idempotencyKey: "undone-1" });
    await group.rollback();
    expect((await evidenceOf(ctx)).contributions).toEqual([]);
    const again = engine.writeGroup!();
    await engine.bulkCreateContributions({ items: [item(ctx, "p1", 1)] }, { idempotencyKey: "undone-1" });
    await again.commit();
    expect((await evidenceOf(ctx)).contributions).toHaveLength(1);
  });
});

describe("the store's connections", () => {
  it("reach the next host of the list when the first one is down (the socket factory takes the driver's place)", async () => {
    const down = url.replace(/127\.0\.0\.1:(\d+)/, "127.0.0.1:1,127.0.0.1:$1");
    const other = await openDatabase(down);
    try {
      expect(await other.sql.get<{ n: number }>("SELECT 1 AS n")).toEqual({ n: 1 });
    } finally {
      await other.close();
    }
  });
});
