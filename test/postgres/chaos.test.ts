import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalEngine, type LocalEngine } from "../../src/engine/local-engine.js";
import { RULES } from "../contract/mortgage-models.js";
import { spawnServe, tokenFor, type ServeProcess } from "../helpers/pg-nodes.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { allResolved, caseItems, inspect, resolvedState, seedContexts, seedModels, until, withStore } from "./support.js";

/**
 * Real `ddsctl serve --database postgres://…` processes on one PostgreSQL, killed with
 * SIGKILL at moments read from the database (a claim held, requests in flight): whatever
 * the moment, the survivors finish the work, exactly once.
 */
let cluster: PgCluster;
const dir = mkdtempSync(join(tmpdir(), "ddsctl-chaos-"));
const children: ServeProcess[] = [];
// A short lease, so a dead node's claim comes free within the test.
const serve = async (url: string) => {
  const p = await spawnServe(url, ["--lease", "2s"]);
  children.push(p);
  return p;
};

beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  for (const c of children) c.child.kill("SIGKILL");
  await Promise.all(children.map((c) => c.child));
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const CONTEXTS = 24;
const PER_CONTEXT = 300;

/** The same cases on any engine: models, rules, and CONTEXTS contexts of PER_CONTEXT contributions. */
async function seedCases(engine: LocalEngine, contexts = CONTEXTS): Promise<void> {
  const models = await seedModels(engine, RULES);
  for (let c = 0; c < contexts; c++) {
    const { contextId } = await engine.createContext({ name: `case-${c}`, type: "mortgage" });
    const items = caseItems(models, contextId, PER_CONTEXT, c);
    for (let i = 0; i < items.length; i += 100) await engine.bulkCreateContributions({ items: items.slice(i, i + 100) });
  }
}

/** What a clean single run produces, computed on SQLite. */
async function reference(): Promise<Awaited<ReturnType<typeof resolvedState>>> {
  const engine = await openLocalEngine({ db: join(dir, `ref-${Math.random()}.db`) });
  try {
    await seedCases(engine);
    await engine.runPipeline();
    return await resolvedState(engine.ctx.db);
  } finally {
    await engine.close();
  }
}

const heldBy = (db: postgres.Sql, pid: number) =>
  db.unsafe(`SELECT id, claim_token AS token FROM contexts WHERE freshness = 'computing' AND claimed_by LIKE $1`, [`%:${pid}:%`]);

describe("two serve nodes on one PostgreSQL", () => {
  it("a node killed mid-pass: its claim is taken over, nothing lost or doubled", async () => {
    const url = await cluster.createDatabase();
    const seeder = await openLocalEngine({ db: url });
    await seedCases(seeder);
    await seeder.close();
    const expected = await reference();
    const db = inspect(url);
    try {
      // Start a node, wait until the database shows it holding a claim, kill -9 it; again
      // until one kill lands mid-pass (its claim still held afterwards).
      let stranded: { id: string; token: number } | undefined;
      for (let attempt = 0; attempt < 10 && !stranded; attempt++) {
        const a = await serve(url);
        const pid = a.child.pid!;
        const [held] = await until(async () => {
          const rows = await heldBy(db, pid);
          return rows.length > 0 ? rows : (await db.unsafe("SELECT 1 FROM contexts WHERE freshness != 'resolved' LIMIT 1")).length === 0 && [];
        }, "the node to claim a context");
        a.child.kill("SIGKILL");
        await a.child;
        if (held) stranded = (await heldBy(db, pid)).find((r) => r.id === held.id) as { id: string; token: number } | undefined;
      }
      expect(stranded, "a kill landed while the node held a claim").toBeDefined();
      await serve(url);
      await until(allResolved(db), "every context to be resolved");
      const [after] = await db.unsafe("SELECT claim_token AS token, freshness FROM contexts WHERE id = $1", [stranded!.id]);
      expect(after.freshness).toBe("resolved");
      expect(after.token).toBeGreaterThan(stranded!.token);
      expect(await withStore(url, (store) => resolvedState(store.sql))).toEqual(expected);
    } finally {
      await db.end();
    }
  });

  it("a node killed mid-pass with a 60 s lease: the other node takes its claims over as soon as its session ends, long before the lease", async () => {
    const url = await cluster.createDatabase();
    const seeder = await openLocalEngine({ db: url });
    await seedCases(seeder, 12);
    await seeder.runPipeline();
    await seeder.close();
    const db = inspect(url);
    const lease = ["--lease", "60s"];
    try {
      const b = await spawnServe(url, lease);
      children.push(b);
      // Every context made stale at once (as by a rule change), both nodes resolving; node a is
      // killed as soon as the database shows it holding a claim. Again, on a new node a,
      // until a kill lands mid-pass.
      let stranded: { id: string; token: number; lease: string } | undefined;
      for (let attempt = 0; attempt < 10 && !stranded; attempt++) {
        const a = await spawnServe(url, lease);
        children.push(a);
        const pid = a.child.pid!;
        await withStore(url, async (store) => {
          await store.sql.run("UPDATE contexts SET freshness = 'stale', evidence_version = evidence_version + 1");
          store.sql.signal("work");
        });
        const held = await until(async () => {
          const rows = await heldBy(db, pid);
          return rows.length > 0 ? rows : (await db.unsafe("SELECT 1 FROM contexts WHERE freshness != 'resolved' LIMIT 1")).length === 0 && [];
        }, "the node to claim a context");
        a.child.kill("SIGKILL");
        await a.child;
        const left = held.length > 0 ? await db.unsafe(`SELECT id, claim_token AS token, lease_expires_at::text AS lease FROM contexts WHERE freshness = 'computing' AND claimed_by LIKE $1`, [`%:${pid}:%`]) : [];
        stranded = left[0] as unknown as typeof stranded;
        if (!stranded) await until(allResolved(db), "every context to be resolved");
      }
      expect(stranded, "a kill landed while the node held a claim").toBeDefined();
      // Well within the 60 s lease: only the end of the dead node's session frees its claims.
      await until(allResolved(db), "every context to be resolved", 30_000);
      const [after] = await db.unsafe(
        "SELECT claim_token AS token, freshness, resolved_at < $2::timestamptz AS early FROM contexts WHERE id = $1",
        [stranded!.id, stranded!.lease],
      );
      expect(after).toMatchObject({ freshness: "resolved", early: true });
      expect(after.token).toBeGreaterThan(stranded!.token);
    } finally {
      await db.end();
    }
  });

  it("a node killed mid-bulk: the client resends what was not acknowledged to the other node, and nothing is doubled", async () => {
    const url = await cluster.createDatabase();
    const { models, contextIds: contexts } = await seedContexts(url, Array.from({ length: CONTEXTS }, (_, c) => `case-${c}`));
    const batches = contexts.flatMap((id, c) => {
      const items = caseItems(models, id, PER_CONTEXT, c);
      return Array.from({ length: items.length / 100 }, (_, i) => ({ key: `case-${c}-${i}`, items: items.slice(i * 100, i * 100 + 100) }));
    });
    const token = await tokenFor(url, "write");
    const [a, b] = [await serve(url), await serve(url)];
    const post = (origin: string, batch: (typeof batches)[number]) =>
      fetch(`${origin}/v1/contributions/bulk`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": batch.key },
        body: JSON.stringify({ items: batch.items }),
      }).then(async (r) => ({
        status: r.status,
        replayed: r.headers.get("idempotent-replayed") === "true",
        body: (await r.json()) as { summary: { succeeded: number }; items: { data?: { contributionId: string } }[] },
      }));
    /** The contribution ids each batch's final answer names: exactly the rows stored, if nothing ran twice. */
    const answered = new Set<string>();
    const keep = (res: Awaited<ReturnType<typeof post>>) => {
      for (const item of res.body.items) if (item.data) answered.add(item.data.contributionId);
    };

    // Four requests in flight to node a; it is killed once ten were acknowledged.
    const acknowledged = new Set<string>();
    let next = 0;
    let killed = false;
    const lane = async () => {
      while (next < batches.length && !killed) {
        const batch = batches[next++];
        try {
          const res = await post(a.origin, batch);
          if (res.status === 200) {
            acknowledged.add(batch.key);
            keep(res);
          }
        } catch {
          // Connection reset by the kill: not acknowledged.
        }
        if (acknowledged.size >= 10 && !killed) {
          killed = true;
          a.child.kill("SIGKILL");
        }
      }
    };
    await Promise.all([lane(), lane(), lane(), lane()]);
    await a.child;
    expect(acknowledged.size).toBeGreaterThanOrEqual(10);
    expect(acknowledged.size).toBeLessThan(batches.length);
    // Everything not acknowledged goes to node b under the same keys: what a committed is
    // replayed, the rest runs once.
    for (const batch of batches.filter((x) => !acknowledged.has(x.key))) {
      const res = await until(async () => {
        const r = await post(b.origin, batch);
        return r.status === 409 ? undefined : r;
      }, `the key ${batch.key} to be free`);
      expect(res.status).toBe(200);
      expect(res.body.summary.succeeded).toBe(100);
      keep(res);
    }
    const db = inspect(url);
    try {
      const stored = (await db.unsafe("SELECT uuid::text AS id FROM contributions")).map((r) => r.id as string);
      expect(stored).toHaveLength(batches.length * 100);
      expect(new Set(stored)).toEqual(answered);
      await until(allResolved(db), "every context to be resolved");
      // What the two nodes' passes left is what passes over the same evidence give again.
      await withStore(url, async (store) => {
        const before = await resolvedState(store.sql);
        await store.sql.run("UPDATE contexts SET freshness = 'stale', evidence_version = evidence_version + 1");
        store.sql.signal("work");
        await until(allResolved(db), "every context to be resolved again");
        expect(await resolvedState(store.sql)).toEqual(before);
      });
    } finally {
      await db.end();
    }
  });

  it("the same Idempotency-Key sent to both nodes at once runs once: the other gets the replay or 409 while it runs", async () => {
    const url = await cluster.createDatabase();
    const { models, contextIds: [contextId] } = await seedContexts(url, ["dup"]);
    const token = await tokenFor(url, "write");
    const [a, b] = [await serve(url), await serve(url)];
    const send = (origin: string, key: string, items: unknown[]) =>
      fetch(`${origin}/v1/contributions/bulk`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ items }),
      }).then(async (r) => ({ status: r.status, replayed: r.headers.get("idempotent-replayed") === "true", text: await r.text() }));
    const KEYS = 12;
    for (let k = 0; k < KEYS; k++) {
      const items = caseItems(models, contextId, 100, k).map((item) => ({ ...item, sourceId: `k${k}-${String(item.sourceId)}` }));
      const [ra, rb] = await Promise.all([send(a.origin, `dup-${k}`, items), send(b.origin, `dup-${k}`, items)]);
      const statuses = [ra.status, rb.status].sort();
      // Never two first runs: one 200 and the other a replay (200) or 409 while it ran.
      expect(statuses[0]).toBe(200);
      if (statuses[1] === 200) expect([ra.replayed, rb.replayed].sort()).toEqual([false, true]);
      else expect(statuses[1]).toBe(409);
      // Afterwards both nodes replay the same answer.
      const [again, other] = await Promise.all([send(a.origin, `dup-${k}`, items), send(b.origin, `dup-${k}`, items)]);
      expect(again).toMatchObject({ status: 200, replayed: true });
      expect(other.text).toBe(again.text);
    }
    const db = inspect(url);
    try {
      const [row] = await db.unsafe("SELECT COUNT(*) AS n FROM contributions");
      expect(row.n).toBe(KEYS * 100);
    } finally {
      await db.end();
    }
  });

  it("a webhook event is delivered with one stable webhook-id, each attempt by one node", async () => {
    const url = await cluster.createDatabase();
    const { models, contextIds: [contextId] } = await seedContexts(url, ["hooked"]);
    const attempts: { id: string; status: number }[] = [];
    const receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        const id = String(req.headers["webhook-id"]);
        // The first attempt of every message fails, so the retry is seen too.
        const status = attempts.some((x) => x.id === id) ? 204 : 500;
        attempts.push({ id, status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    try {
      const admin = await tokenFor(url, "admin");
      const [a, b] = [await serve(url), await serve(url)];
      const hook = await fetch(`${a.origin}/v1/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ["context.resolved"] }),
      });
      expect(hook.status).toBe(201);
      const add = await fetch(`${b.origin}/v1/contributions`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify(caseItems(models, contextId, 1, 0)[0]),
      });
      expect(add.status).toBe(201);
      await until(() => attempts.some((x) => x.status === 204), "the retried delivery to succeed");
      expect(new Set(attempts.map((x) => x.id)).size).toBe(1);
      expect(attempts.map((x) => x.status)).toEqual([500, 204]);
      const db = inspect(url);
      try {
        // The receiver answers before the sender records the result: wait for the record.
        const rows = await until(async () => {
          const r = await db.unsafe("SELECT 'msg_' || message_id AS id, attempts, status FROM webhook_deliveries");
          return r[0]?.status === "delivered" && r;
        }, "the delivery to be recorded");
        expect(rows).toEqual([{ id: attempts[0].id, attempts: 2, status: "delivered" }]);
        expect(attempts).toHaveLength(2);
      } finally {
        await db.end();
      }
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });

  it("SIGTERM lets a node finish its pass and give back every claim before it exits", async () => {
    const url = await cluster.createDatabase();
    const seeder = await openLocalEngine({ db: url });
    await seedCases(seeder);
    await seeder.close();
    const db = inspect(url);
    try {
      const a = await serve(url);
      const pid = a.child.pid!;
      await until(async () => (await heldBy(db, pid)).length > 0, "the node to claim a context");
      a.child.kill("SIGTERM");
      const exit = await a.child;
      expect(exit.exitCode).toBe(0);
      expect(await heldBy(db, pid)).toHaveLength(0);
    } finally {
      await db.end();
    }
  });
});
