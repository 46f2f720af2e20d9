import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthenticator, issueToken, revokeToken } from "../../src/engine/auth/index.js";
import { openLocalEngine } from "../../src/engine/local-engine.js";
import { migrateDatabase, openDatabase } from "../../src/engine/store/db.js";
import { createIdempotencyRepo } from "../../src/engine/store/idempotency-repo.js";
import { createPipelineRepo } from "../../src/engine/store/pipeline-repo.js";
import { CLAIM_MARKS } from "../../src/engine/store/postgres/pg-claim-marks.js";
import { MIGRATIONS } from "../../src/engine/store/postgres/migrations/index.js";
import type { Store } from "../../src/engine/store/store.js";
import { SHARED_SECRET_KEY, startNode } from "../helpers/pg-nodes.js";
import { declaredShape, postgresShape } from "../helpers/schema-shape.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

/** Polls `check` until it holds (no fixed sleeps: the condition decides). */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("PostgreSQL store: schema", () => {
  it("migrates on open to the declared schema, and refuses a newer schema (and an older one when told not to migrate)", async () => {
    const url = await cluster.createDatabase();
    expect(await migrateDatabase(url, { check: true })).toMatchObject({ kind: "postgres", version: 0, latest: MIGRATIONS.length, applied: 0 });
    const store = await openDatabase(url);
    await store.close();
    const look = postgres(url, { max: 1, onnotice: () => undefined });
    expect(await postgresShape(look)).toEqual(declaredShape("postgres"));
    await look.end();
    expect(await migrateDatabase(url)).toMatchObject({ version: MIGRATIONS.length, applied: 0 });

    const admin = postgres(url, { max: 1, onnotice: () => undefined });
    await admin.unsafe("UPDATE dds_schema SET version = version + 1");
    await expect(openDatabase(url)).rejects.toThrow(/newer than this ddsctl supports/);
    await admin.unsafe("UPDATE dds_schema SET version = 0");
    await expect(openDatabase(url, { migrate: false })).rejects.toThrow(/run ddsctl migrate first/);
    await admin.end();
  });

  it("two nodes opening an empty database at once migrate it once", async () => {
    const url = await cluster.createDatabase();
    const stores = await Promise.all([openDatabase(url), openDatabase(url), openDatabase(url)]);
    expect(await stores[0].sql.get("SELECT version FROM dds_schema")).toEqual({ version: MIGRATIONS.length });
    for (const s of stores) await s.close();
  });
});

describe("PostgreSQL store: several nodes", () => {
  let url: string;
  let a: Store;
  let b: Store;
  beforeAll(async () => {
    url = await cluster.createDatabase();
    a = await openDatabase(url);
    b = await openDatabase(url);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("a commit on one node moves the other node's change stamp (its caches forget), and wakes its workers", async () => {
    const stamp = b.changeStamp();
    expect(b.changeStamp()).toBe(stamp);
    let woken = 0;
    const off = b.on("work", () => woken++);
    const engine = await openLocalEngine({ db: url });
    const { contextId } = await engine.createContext({ name: "x" });
    await until(() => b.changeStamp() !== stamp, "the other node to hear the commit");
    const { key } = (await engine.ctx.contexts.get(contextId))!;
    await engine.ctx.tx((s) => engine.ctx.store.markStale(s.db, [key]));
    await until(() => woken > 0, "the other node's worker to be woken");
    off();
    await engine.close();
  });

  it("once settled, the other node's stamp counts every commit that returned here before: no wait for the notification", async () => {
    // Each commit returns on node a, then b is asked at once: a cache that b consults after
    // settled() cannot answer from before that commit.
    for (let i = 0; i < 50; i++) {
      const before = b.changeStamp();
      await issueToken(a, { workspace: "w", scopes: ["read"] });
      await b.settled!();
      expect(b.changeStamp()).not.toBe(before);
    }
    // Nothing committed since: settled() leaves the stamp as it was, so caches still serve.
    await b.settled!();
    const quiet = b.changeStamp();
    await Promise.all([b.settled!(), b.settled!(), b.settled!()]);
    expect(b.changeStamp()).toBe(quiet);
  });

  it("a token revoked on one node is refused by the other on the next request, without a stamp given", async () => {
    const auth = createAuthenticator(b);
    for (let i = 0; i < 10; i++) {
      const issued = await issueToken(a, { workspace: "w", scopes: ["read"] });
      expect((await auth.authenticate(issued.token))?.workspace).toBe("w");
      expect((await auth.authenticate(issued.token))?.workspace).toBe("w");
      await revokeToken(a, issued.tokenId);
      expect(await auth.authenticate(issued.token)).toBeUndefined();
    }
  });

  it("a token revoked on one node is refused by the other once it hears of it", async () => {
    const auth = createAuthenticator(b);
    const issued = await issueToken(a, { workspace: "w", scopes: ["read"] });
    expect((await auth.authenticate(issued.token, b.changeStamp()))?.workspace).toBe("w");
    await revokeToken(a, issued.tokenId);
    await until(async () => (await auth.authenticate(issued.token, b.changeStamp())) === undefined, "the revocation to reach the other node");
  });

  it("an Idempotency-Key marked on one node is refused on the other while it runs, and freed when that node's session dies", async () => {
    const timing = { now: Date.now(), ttlMs: 60_000, abandonMs: 60_000 };
    const first = await createIdempotencyRepo(a).begin("w", "k1", timing);
    expect(first.kind).toBe("claimed");
    expect((await createIdempotencyRepo(b).begin("w", "k1", timing)).kind).toBe("running");
    // The same node refuses a second run of its own key too (advisory locks are re-entrant).
    expect((await createIdempotencyRepo(a).begin("w", "k1", timing)).kind).toBe("running");
    if (first.kind === "claimed") await first.claim.finish({ status: 201, headers: {}, body: "{}" });
    expect((await createIdempotencyRepo(b).begin("w", "k1", timing)).kind).toBe("replay");

    const c = await openDatabase(url);
    expect((await createIdempotencyRepo(c).begin("w", "k2", timing)).kind).toBe("claimed");
    expect((await createIdempotencyRepo(b).begin("w", "k2", timing)).kind).toBe("running");
    await c.close(); // the node dies: its session, and the mark, with it
    expect((await createIdempotencyRepo(b).begin("w", "k2", timing)).kind).toBe("claimed");
  });

  it("a claim stands while its node's session holds the worker's mark, lease or not, and is taken over once that session ends; a lost session marks again", async () => {
    const engine = await openLocalEngine({ db: url });
    const { contextId } = await engine.createContext({ name: "claimed" });
    const { key } = (await engine.ctx.contexts.get(contextId))!;
    await engine.ctx.tx((s) => engine.ctx.store.markStale(s.db, [key]));
    await engine.close();
    const look = postgres(url, { max: 1, onnotice: () => undefined });
    /** The sessions holding worker-c's mark. */
    const markHolders = async () =>
      (
        await look.unsafe(
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objsubid = 2 AND objid::bigint = (hashtext('worker-c')::bigint & 4294967295) AND granted",
          [CLAIM_MARKS],
        )
      ).map((r) => Number(r.pid));
    try {
      const c = await openDatabase(url);
      const [claim] = await createPipelineRepo(c.sql).claimMany("worker-c", 60_000, 1, { only: [contextId] });
      expect(claim).toBeDefined();
      // A long lease, a live session: the claim stands.
      expect(await createPipelineRepo(b.sql).claimMany("worker-b", 60_000, 1, { only: [contextId] })).toEqual([]);
      // Its listening session lost (terminated): the node marks its worker again on a new one.
      const [first] = await markHolders();
      expect(first).toBeDefined();
      await look.unsafe("SELECT pg_terminate_backend($1)", [first]);
      await until(async () => (await markHolders()).some((pid) => pid !== first), "the worker to be marked on a new session");
      expect(await markHolders()).toHaveLength(1);
      expect(await createPipelineRepo(b.sql).claimMany("worker-b", 60_000, 1, { only: [contextId] })).toEqual([]);
      // The node dies: its session ends, and the claim is taken over long before its lease.
      await c.close();
      const [taken] = await createPipelineRepo(b.sql).claimMany("worker-b", 60_000, 1, { only: [contextId] });
      expect(taken).toMatchObject({ contextId, takenOver: true });
      expect(taken.token).toBeGreaterThan(claim.token);
      // And this node's own claim stands against the others in turn.
      expect(await createPipelineRepo(a.sql).claimMany("worker-a", 60_000, 1, { only: [contextId] })).toEqual([]);
    } finally {
      await look.end();
    }
  });
});

describe("secrets on PostgreSQL", () => {
  it("come from DDS_SECRET_KEY only (every node must hold the same key): without it, a webhook is refused with the reason", async () => {
    // The process's own environment has the key: the application reads only what it is given.
    const saved = process.env.DDS_SECRET_KEY;
    process.env.DDS_SECRET_KEY = SHARED_SECRET_KEY;
    const engine = await openLocalEngine({ db: await cluster.createDatabase(), env: {} });
    try {
      await expect(engine.createWebhook({ url: "https://example.com/h", events: ["context.stale"] })).rejects.toThrow(/DDS_SECRET_KEY.*the same on every node/);
      expect((await engine.listWebhooks()).data).toHaveLength(0);
    } finally {
      if (saved === undefined) delete process.env.DDS_SECRET_KEY;
      else process.env.DDS_SECRET_KEY = saved;
      await engine.close();
    }
  });
});

describe("health", () => {
  it("during an outage /readyz's 503s are answers, not errors: the change is logged once (not_ready), and once again on the return (ready)", async () => {
    const own = await startPostgres();
    const lines: string[] = [];
    const node = await startNode(await own.createDatabase(), { worker: false, webhooks: false, quiet: false, log: (line) => lines.push(line) });
    const probe = async () => (await fetch(`${node.origin}/readyz`)).status;
    try {
      expect(await probe()).toBe(200);
      await own.halt("fast");
      for (let i = 0; i < 5; i++) expect(await probe()).toBe(503);
      await own.resume();
      await until(async () => (await probe()) === 200, "readiness back");
      for (let i = 0; i < 3; i++) expect(await probe()).toBe(200);
      const events = lines.map((l) => JSON.parse(l) as { event?: string; path?: string; status?: number; error?: string });
      expect(events.filter((e) => e.event === "not_ready")).toHaveLength(1);
      expect(events.filter((e) => e.event === "ready")).toHaveLength(1);
      // Each probe has its ordinary access line, none of them a failure of the node.
      const probes = events.filter((e) => e.path === "/readyz");
      expect(probes.filter((e) => e.status === 503).length).toBeGreaterThanOrEqual(5);
      expect(probes.filter((e) => e.error !== undefined)).toEqual([]);
    } finally {
      await node.close().catch(() => undefined);
      await own.stop();
    }
  });

  it("under --quiet an outage's /readyz probes write nothing but the not_ready event", async () => {
    const own = await startPostgres();
    const lines: string[] = [];
    const node = await startNode(await own.createDatabase(), { worker: false, webhooks: false, quiet: true, log: (line) => lines.push(line) });
    try {
      await own.halt("fast");
      for (let i = 0; i < 5; i++) expect((await fetch(`${node.origin}/readyz`)).status).toBe(503);
      const written = lines.map((l) => JSON.parse(l) as { event?: string });
      expect(written.filter((e) => e.event === undefined)).toEqual([]);
      expect(written.filter((e) => e.event === "not_ready")).toHaveLength(1);
    } finally {
      await node.close().catch(() => undefined);
      await own.stop();
    }
  });

  it("/readyz follows the database's reachability; /healthz is liveness (200 while the node runs) and says what it knows", async () => {
    const own = await startPostgres();
    const node = await startNode(await own.createDatabase(), { worker: false, webhooks: false });
    try {
      const health = await fetch(`${node.origin}/healthz`);
      expect([health.status, await health.json()]).toEqual([200, { status: "ok", database: "reachable" }]);
      expect((await fetch(`${node.origin}/readyz`)).status).toBe(200);
      await own.stop();
      const ready = await fetch(`${node.origin}/readyz`);
      expect([ready.status, await ready.json()]).toEqual([503, { status: "unavailable", database: "unreachable" }]);
      // Once the node has probed its database and found it gone, liveness says so, still 200.
      await until(async () => ((await (await fetch(`${node.origin}/healthz`)).json()) as { database: string }).database === "unreachable", "the node to notice");
      expect((await fetch(`${node.origin}/healthz`)).status).toBe(200);
    } finally {
      await node.server.close();
      await node.store.close().catch(() => undefined);
    }
  });
});
