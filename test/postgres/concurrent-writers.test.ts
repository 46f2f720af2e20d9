import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalEngine, type LocalEngine } from "../../src/engine/local-engine.js";
import { openDatabase } from "../../src/engine/store/db.js";
import { UNRESOLVED_VERSION } from "../../src/engine/store/evidence-repo.js";
import type { Sql } from "../../src/engine/store/sql.js";
import type { Store } from "../../src/engine/store/store.js";
import { startNode, type InProcessNode } from "../helpers/pg-nodes.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { inspect, until } from "./support.js";

/**
 * Writers of evidence on PostgreSQL do not wait on each other's transactions: a bulk holds
 * the contexts it writes into only against status changes (FOR KEY SHARE), marks them stale
 * with its COMMIT, and two writers of one record are ordered by its unique indexes (the
 * second runs again after the first). Each test holds one writer's transaction open at a
 * chosen point (a gate before its COMMIT) and looks at what another writer does meanwhile.
 */
const PERSON = { name: "Person", identity: ["ssn"], fields: [{ name: "ssn", type: "string" as const }, { name: "income", type: "number" as const, resolution: { policy: "max" as const } }] };

let cluster: PgCluster;
let url: string;
let db: ReturnType<typeof inspect>;
let person: string;
beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase();
  db = inspect(url);
  const store = await openDatabase(url);
  const engine = createLocalEngine({ db: store, ownsStore: true });
  person = (await engine.createModel(PERSON)).modelId;
  await engine.setModelStatus(person, "active");
  await engine.close();
}, 60_000);
afterAll(async () => {
  await db?.end();
  await cluster?.stop();
});

const item = (contextId: string, ssn: string, income: number, sourceId = `src-${ssn}`) => ({ contextId, modelId: person, sourceId, sourceType: "integration", data: { ssn, income } });

/**
 * An engine on its own store whose next transaction, once its body is done (every row it
 * writes written, every lock of its body taken), waits at a gate before its COMMIT.
 */
async function gatedEngine(): Promise<{ engine: LocalEngine; store: Store; holdNext(): { reached: Promise<void>; release(): void } }> {
  const store = await openDatabase(url);
  let next: { reached: () => void; gate: Promise<void> } | undefined;
  const root = store.sql;
  const sql: Sql = {
    ...root,
    tx: (fn, options) => {
      const held = next;
      next = undefined;
      return root.tx(async (tx) => {
        const result = await fn(tx);
        if (held) {
          held.reached();
          await held.gate;
        }
        return result;
      }, options);
    },
  };
  const engine = createLocalEngine({ db: { ...store, sql }, ownsStore: false });
  return {
    engine,
    store,
    holdNext() {
      let reached!: () => void;
      let release!: () => void;
      const atGate = new Promise<void>((r) => (reached = r));
      next = { reached, gate: new Promise<void>((r) => (release = r)) };
      return { reached: atGate, release };
    },
  };
}

/** Resolves with `work`'s outcome, or rejects as soon as some backend of the database waits on a lock. */
async function withoutLockWaits<T>(work: Promise<T>): Promise<T> {
  let settled = false;
  const done = work.finally(() => (settled = true));
  const waits = (async () => {
    while (!settled) {
      const rows = await db.unsafe("SELECT left(query, 80) AS query FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
      if (rows.length > 0) throw new Error(`a writer waited on a lock: ${rows.map((r) => r.query as string).join("; ")}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  await Promise.race([done, waits]);
  return done;
}

const freshness = async (contextId: string) => (await db.unsafe("SELECT freshness FROM contexts WHERE uuid = $1", [contextId]))[0].freshness as string;

describe("writers of evidence on PostgreSQL", () => {
  it("a bulk into the same contexts as an open one commits meanwhile, without waiting on a lock; the first to commit marks their contexts stale, the other finds them stale and leaves them alone", async () => {
    const a = await gatedEngine();
    const b = createLocalEngine({ db: await openDatabase(url), ownsStore: true });
    try {
      const contexts: string[] = [];
      for (let c = 0; c < 4; c++) contexts.push((await b.createContext({ name: `shared-${c}` })).contextId);
      await b.runPipeline();
      const versions = async () => (await db.unsafe("SELECT evidence_version::int AS v FROM contexts WHERE uuid = ANY($1::uuid[]) ORDER BY id", [contexts])).map((r) => r.v as number);
      const before = await versions();
      // Interleaved: each bulk touches every context.
      const bulk = (tag: string) => ({ items: Array.from({ length: 20 }, (_, i) => item(contexts[i % 4], `${tag}-${i}`, 1000 + i)) });
      const hold = a.holdNext();
      const first = a.engine.bulkCreateContributions(bulk("a"), { idempotencyKey: "open-a" });
      await hold.reached;
      const second = await withoutLockWaits(b.bulkCreateContributions(bulk("b"), { idempotencyKey: "open-b" }));
      expect(second.summary).toMatchObject({ succeeded: 20, failed: 0 });
      // The open bulk has not marked anything yet: its mark goes with its commit.
      for (const id of contexts) expect(await freshness(id)).toBe("stale");
      const [{ n: seen }] = await db.unsafe("SELECT COUNT(*)::int AS n FROM contributions WHERE source_id LIKE 'src-a-%'");
      expect(seen).toBe(0);
      hold.release();
      expect((await first).summary).toMatchObject({ succeeded: 20, failed: 0 });
      const [{ n }] = await db.unsafe("SELECT COUNT(*)::int AS n FROM contributions");
      expect(n).toBe(40);
      // Each context was marked once: by the second bulk, which found it resolved; the open
      // bulk's COMMIT found it stale already, waiting for its pass, and left its row alone.
      expect(await versions()).toEqual(before.map((v) => v + 1));
      for (const id of contexts) expect(await freshness(id)).toBe("stale");
      await b.runPipeline();
      for (const id of contexts) expect(await freshness(id)).toBe("resolved");
    } finally {
      await a.engine.close();
      await a.store.close();
      await b.close();
    }
  });

  it("two writers of the same records at once: the second runs again after the first, and each record and source ends with one accepted contribution", async () => {
    const a = await gatedEngine();
    const b = createLocalEngine({ db: await openDatabase(url), ownsStore: true });
    try {
      const { contextId } = await b.createContext({ name: "same-records" });
      // One record existing already (its source superseded by both), one new to both.
      await b.bulkCreateContributions({ items: [item(contextId, "old", 1)] });
      const bulk = (income: number) => ({ items: [item(contextId, "old", income, "feed"), item(contextId, "new", income, "feed")] });
      const hold = a.holdNext();
      const first = a.engine.bulkCreateContributions(bulk(10));
      await hold.reached;
      // The second waits for the first (the same records), then runs again after it.
      const second = b.bulkCreateContributions(bulk(20));
      await until(async () => (await db.unsafe("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'")).length > 0, "the second writer to wait for the first");
      hold.release();
      const [one, two] = await Promise.all([first, second]);
      expect(one.summary).toMatchObject({ succeeded: 2, failed: 0 });
      expect(two.summary).toMatchObject({ succeeded: 2, failed: 0 });
      const rows = await db.unsafe(
        `SELECT r.identity_key AS k, k.source_id AS s, k.status, k.uuid::text AS id, p.uuid::text AS supersedes FROM contributions k JOIN records r ON r.id = k.record_id
         LEFT JOIN contributions p ON p.id = k.supersedes WHERE k.source_id = 'feed' ORDER BY r.identity_key, k.id`,
      );
      const records = await db.unsafe("SELECT identity_key AS k FROM records r JOIN contexts c ON c.id = r.context_id WHERE c.uuid = $1 ORDER BY 1", [contextId]);
      expect(records.map((r) => r.k)).toHaveLength(2);
      for (const k of new Set(rows.map((r) => r.k))) {
        const mine = rows.filter((r) => r.k === k);
        // In commit order: the first accepted then superseded, the second superseding it.
        expect(mine.map((r) => r.status)).toEqual(["superseded", "accepted"]);
        expect(mine[1].supersedes).toBe(mine[0].id);
      }
      // What each writer answered says the same.
      const answered = two.items.map((i) => (i.data as { supersedes: string | null }).supersedes).sort();
      expect(answered).toEqual(rows.filter((r) => r.status === "accepted").map((r) => r.supersedes as string).sort());
    } finally {
      await a.engine.close();
      await a.store.close();
      await b.close();
    }
  });

  it("many writers of the same records and source at once all succeed: one that loses the race runs again holding the contexts, and each record ends with one accepted contribution after a chain of all of them", async () => {
    const engines = await Promise.all(Array.from({ length: 4 }, async () => createLocalEngine({ db: await openDatabase(url), ownsStore: true })));
    try {
      const { contextId } = await engines[0].createContext({ name: "many-writers" });
      const ssns = Array.from({ length: 20 }, (_, i) => `many-${i}`);
      const WRITERS = 16;
      // Every bulk gives every record a new contribution of the same source: each pair of
      // them races on every record's accepted contribution.
      const bulks = await Promise.all(
        Array.from({ length: WRITERS }, (_, w) => engines[w % engines.length].bulkCreateContributions({ items: ssns.map((ssn) => item(contextId, ssn, w + 1, "feed")) })),
      );
      for (const b of bulks) expect(b.summary).toMatchObject({ succeeded: ssns.length, failed: 0 });
      const rows = await db.unsafe(
        `SELECT r.identity_key AS k, k.status, k.id, k.supersedes FROM contributions k JOIN records r ON r.id = k.record_id JOIN contexts c ON c.id = r.context_id
         WHERE c.uuid = $1 ORDER BY r.identity_key, k.id`,
        [contextId],
      );
      const records = [...new Set(rows.map((r) => String(r.k)))];
      expect(records).toHaveLength(ssns.length);
      for (const record of records) {
        const mine = rows.filter((r) => String(r.k) === record);
        expect(mine).toHaveLength(WRITERS);
        expect(mine.filter((r) => r.status === "accepted")).toHaveLength(1);
        // One chain: each contribution supersedes the one before it, the first none.
        expect(mine.map((r) => (r.supersedes === null ? null : String(r.supersedes)))).toEqual([null, ...mine.slice(0, -1).map((r) => String(r.id))]);
      }
    } finally {
      for (const e of engines) await e.close();
    }
  });

  it("a status change waits for an open bulk into the context, and a bulk after it is refused", async () => {
    const a = await gatedEngine();
    const b = createLocalEngine({ db: await openDatabase(url), ownsStore: true });
    try {
      const { contextId } = await b.createContext({ name: "completed-meanwhile" });
      const hold = a.holdNext();
      const first = a.engine.bulkCreateContributions({ items: [item(contextId, "x", 1)] });
      await hold.reached;
      const complete = b.setContextStatus(contextId, "completed");
      await until(async () => (await db.unsafe("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'")).length > 0, "the status change to wait for the bulk");
      hold.release();
      expect((await first).summary.succeeded).toBe(1);
      expect((await complete).status).toBe("completed");
      const after = await b.bulkCreateContributions({ items: [item(contextId, "y", 1)] });
      expect(after.items[0]).toMatchObject({ status: 409 });
    } finally {
      await a.engine.close();
      await a.store.close();
      await b.close();
    }
  });
});

describe("freshness under concurrent writers and passes on PostgreSQL", () => {
  let nodes: InProcessNode[] = [];
  afterAll(async () => {
    for (const n of nodes) await n.close();
  });

  it("a context read right after an accepted bulk is stale or computing, or resolved with that bulk's records resolved: never resolved without them", async () => {
    nodes = [await startNode(url), await startNode(url)];
    const engines = await Promise.all(nodes.map(async () => createLocalEngine({ db: await openDatabase(url), ownsStore: true })));
    try {
      const contexts: string[] = [];
      for (let c = 0; c < 3; c++) contexts.push((await engines[0].createContext({ name: `fresh-${c}` })).contextId);
      let n = 0;
      const lane = async (engine: LocalEngine, lane: number) => {
        for (let round = 0; round < 12; round++) {
          const tag = `l${lane}-${round}`;
          const res = await engine.bulkCreateContributions({ items: contexts.map((id, i) => item(id, `${tag}-${i}`, 500 + round)) });
          expect(res.summary.failed).toBe(0);
          // Right after the answer: any context whose read says resolved has this bulk's new records resolved.
          const rows = await db.unsafe(
            `SELECT c.freshness, bool_or(r.changed_version = $2) AS unresolved FROM records r JOIN contexts c ON c.id = r.context_id
             WHERE r.identity_key = ANY($1::text[]) GROUP BY c.id, c.freshness`,
            [contexts.map((_, i) => JSON.stringify([`${tag}-${i}`])), UNRESOLVED_VERSION],
          );
          expect(rows).toHaveLength(contexts.length);
          for (const r of rows) expect(r.freshness === "resolved" && r.unresolved, `a context read resolved without bulk ${tag}'s records`).toBe(false);
          n++;
        }
      };
      await Promise.all([lane(engines[0], 0), lane(engines[1], 1), lane(engines[0], 2), lane(engines[1], 3)]);
      expect(n).toBe(48);
      await until(async () => (await db.unsafe("SELECT 1 FROM contexts WHERE freshness != 'resolved' AND uuid = ANY($1::uuid[])", [contexts])).length === 0, "every context to be resolved");
    } finally {
      for (const e of engines) await e.close();
    }
  });
});
