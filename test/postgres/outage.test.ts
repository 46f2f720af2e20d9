import { execa } from "execa";
import { connect, createServer, type Socket } from "node:net";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/engine/store/db.js";
import { BIN } from "../helpers/cli.js";
import { freePort, startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { SHARED_SECRET_KEY, startNode, tokenFor, type InProcessNode } from "../helpers/pg-nodes.js";
import { caseItems, inspect, seedContexts, until } from "./support.js";

/**
 * A node whose PostgreSQL goes away, or cannot take more: it keeps running, answers 503
 * problem+json with Retry-After (never a 500, never a hang), and serves again by itself.
 * The multi-node load through each fault is test/postgres/faults.test.ts.
 */
let cluster: PgCluster;
const nodes: InProcessNode[] = [];
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  for (const n of nodes) await n.close().catch(() => undefined);
  await cluster?.stop();
});

const node = async (url: string) => {
  const n = await startNode(url, { worker: false, webhooks: false });
  nodes.push(n);
  return n;
};

interface Answer {
  status: number;
  retryAfter: string | null;
  contentType: string | null;
  body: { code?: string; type?: string; summary?: { succeeded: number } };
}
const call = async (origin: string, token: string, method: string, path: string, body?: unknown, key?: string): Promise<Answer> => {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (key) headers["idempotency-key"] = key;
  const res = await fetch(`${origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), contentType: res.headers.get("content-type"), body: (await res.json()) as Answer["body"] };
};
const unavailable = {
  status: 503,
  retryAfter: expect.stringMatching(/^\d+$/),
  contentType: "application/problem+json",
  body: expect.objectContaining({ code: "database_unavailable", type: "https://ddsctl.dev/problems/database-unavailable" }),
};

describe("a node whose database goes away", () => {
  it("answers 503 problem+json with Retry-After while it is down (readyz 503, healthz 200) and serves again once it is back; a keyed batch retried then runs once", async () => {
    const url = await cluster.createDatabase();
    const { models, contextIds } = await seedContexts(url, ["down-1"]);
    const token = await tokenFor(url, "admin");
    const n = await node(url);
    const batch = { items: caseItems(models, contextIds[0], 50, 1).map((item, i) => ({ ...item, sourceId: `s-${i}` })) };
    expect((await call(n.origin, token, "GET", "/v1/contexts?limit=1")).status).toBe(200);
    await cluster.halt();
    try {
      // The first requests find out, the later ones are refused at once: all alike.
      for (let i = 0; i < 3; i++) {
        expect(await call(n.origin, token, "GET", "/v1/contexts?limit=1")).toEqual(unavailable);
        expect(await call(n.origin, token, "GET", `/v1/contexts/${contextIds[0]}`)).toEqual(unavailable);
        expect(await call(n.origin, token, "POST", "/v1/contributions/bulk", batch, "down-batch")).toEqual(unavailable);
        expect(await call(n.origin, token, "POST", "/v1/contexts", { name: "while-down" })).toEqual(unavailable);
      }
      expect((await fetch(`${n.origin}/readyz`)).status).toBe(503);
      const health = await fetch(`${n.origin}/healthz`);
      expect([health.status, await health.json()]).toEqual([200, { status: "ok", database: "unreachable" }]);
    } finally {
      await cluster.resume();
    }
    await until(async () => (await call(n.origin, token, "GET", "/v1/contexts?limit=1")).status === 200, "the node to serve again");
    expect((await fetch(`${n.origin}/readyz`)).status).toBe(200);
    const first = await call(n.origin, token, "POST", "/v1/contributions/bulk", batch, "down-batch");
    const again = await call(n.origin, token, "POST", "/v1/contributions/bulk", batch, "down-batch");
    expect([first.status, first.body.summary?.succeeded, again.status]).toEqual([200, 50, 200]);
    const db = inspect(url);
    try {
      expect(Number((await db.unsafe("SELECT COUNT(*) AS n FROM contributions"))[0].n)).toBe(50);
    } finally {
      await db.end();
    }
  });

  it("a `serve` started before its database waits for it, says so on stderr, and serves once it comes", async () => {
    const url = await cluster.createDatabase();
    const token = await tokenFor(url, "read");
    await cluster.halt();
    let stderr = "";
    const child = execa("node", [BIN, "serve", "--port", "0", "--database", url], { reject: false, env: { NO_COLOR: "1", DDS_SECRET_KEY: SHARED_SECRET_KEY } });
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    try {
      await until(() => stderr.includes("waiting for the database"), "serve to say it waits");
      expect(stderr).toMatch(/waiting for the database: cannot open database postgres:\/\/dds@127\.0\.0\.1:\d+\/\S+: .*ECONNREFUSED/);
      expect(stderr).not.toContain("listening on");
      await cluster.resume();
      const origin = await until(() => /listening on (http:\/\/\S+?)\/v1/.exec(stderr)?.[1], "serve to listen");
      expect((await call(origin, token, "GET", "/v1/contexts?limit=1")).status).toBe(200);
    } finally {
      child.kill("SIGTERM");
      const exit = await child;
      expect(exit.exitCode, stderr).toBe(0);
    }
  });

  it("an in-process command on an unreachable database exits 6 with one line and no stack", async () => {
    const url = `postgres://dds@127.0.0.1:${await freePort()}/none`;
    for (const argv of [["contexts", "list"], ["migrate", "--check"]]) {
      const r = await execa("node", [BIN, "--database", url, ...argv], { reject: false, env: { NO_COLOR: "1" } });
      expect(r.exitCode, r.stderr).toBe(6);
      const lines = r.stderr.split("\n").filter((l) => l.startsWith("error:"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^error: cannot open database postgres:\/\/dds@127\.0\.0\.1:\d+\/none: .*ECONNREFUSED/);
      expect(r.stderr).not.toMatch(/^\s+at /m);
    }
  });
});

describe("a node whose Idempotency-Key connection dies", () => {
  it("forgets the marks of the lost session, and a mark taken again after it is released for real", async () => {
    const url = await cluster.createDatabase();
    const [a, b] = [await openDatabase(url), await openDatabase(url)];
    const outside = inspect(url);
    try {
      const first = await a.lockKey!("w", "k1");
      expect(first).toBeDefined();
      // The session that holds the mark ends (a restart, an operator's pg_terminate_backend).
      await outside.unsafe("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted");
      // Another request finds out (503); a retry of the first key then takes its mark on a new session.
      await expect(a.lockKey!("w", "k2")).rejects.toMatchObject({ code: "database_unavailable" });
      const next = await until(async () => a.lockKey!("w", "k1").catch(() => undefined), "a new session for the marks");
      // The request of the lost session ends late: giving back its mark must not give back the new one.
      await first!.release();
      expect(await b.lockKey!("w", "k1")).toBeUndefined();
      await next.release();
      const other = await b.lockKey!("w", "k1");
      expect(other).toBeDefined();
      await other!.release();
    } finally {
      await outside.end();
      await a.close();
      await b.close();
    }
  });
});

describe("a node whose database cannot take more", () => {
  it("answers 503 with Retry-After when PostgreSQL refuses a new connection (too_many_connections)", async () => {
    const own = await startPostgres({ settings: ["max_connections=12", "superuser_reserved_connections=3"] });
    const extra: postgres.Sql[] = [];
    try {
      const dbUrl = await own.createDatabase();
      await own.query("CREATE ROLE app LOGIN");
      const name = dbUrl.slice(dbUrl.lastIndexOf("/") + 1);
      await own.query(`ALTER DATABASE ${name} OWNER TO app`);
      const url = dbUrl.replace("postgres://dds@", "postgres://app@");
      const token = await tokenFor(url, "read");
      const n = await node(`${url}?pool_size=2`);
      expect((await call(n.origin, token, "GET", "/v1/contexts?limit=1")).status).toBe(200);
      // Every slot an ordinary role may take is taken, then the node's pooled backends end.
      const fill = async () => {
        for (;;) {
          const c = postgres(url, { max: 1, onnotice: () => undefined });
          try {
            await c.unsafe("SELECT 1");
            extra.push(c);
          } catch (err) {
            await c.end({ timeout: 0 });
            if ((err as { code?: string }).code === "53300") return;
            throw err;
          }
        }
      };
      await fill();
      await own.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'ddsctl' AND query NOT LIKE 'LISTEN%'");
      await fill();
      const refused = await call(n.origin, token, "GET", "/v1/contexts?limit=1");
      expect(refused).toEqual(unavailable);
      expect(JSON.stringify(refused.body)).toContain("too many connections");
      for (const c of extra.splice(0)) await c.end({ timeout: 0 });
      await until(async () => (await call(n.origin, token, "GET", "/v1/contexts?limit=1")).status === 200, "the node to serve again");
    } finally {
      for (const c of extra) await c.end({ timeout: 0 });
      await own.stop();
    }
  });

  it("answers 503 with Retry-After when every connection of its pool stays busy past pool_timeout", async () => {
    const url = await cluster.createDatabase();
    const { models, contextIds } = await seedContexts(url, ["busy"]);
    const token = await tokenFor(url, "write");
    const n = await node(`${url}?pool_size=1&pool_timeout=1`);
    const outside = inspect(url);
    try {
      // A writer elsewhere holds the context's row: the node's one connection waits on it.
      // The bulk is sent once the row is held: sent at once, it could take the row first on a
      // busy machine, and the writer then waited on it instead (and nothing waited after).
      let rowHeld!: () => void;
      const holding = new Promise<void>((resolve) => (rowHeld = resolve));
      const held = outside.begin(async (tx) => {
        await tx.unsafe("SELECT 1 FROM contexts WHERE uuid = $1 FOR UPDATE", [contextIds[0]]);
        rowHeld();
        await until(async () => (await outside.unsafe("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'")).length > 0, "the node to wait on the lock");
        const refused = await call(n.origin, token, "GET", "/v1/contexts?limit=1");
        expect(refused).toEqual({ ...unavailable, retryAfter: "1" });
        expect(JSON.stringify(refused.body)).toContain("stayed busy");
      });
      // (The writer's connection is new: its first statement connects first, which under load
      // took longer than the node's bulk on a warm connection.)
      await Promise.race([holding, held]);
      const waiting = call(n.origin, token, "POST", "/v1/contributions/bulk", { items: caseItems(models, contextIds[0], 5, 0) }, "busy-1");
      await held;
      expect((await waiting).status).toBe(200);
    } finally {
      await outside.end();
    }
  });
});

describe("a node paused inside a transaction", () => {
  it("holds its row locks no longer than idle_in_transaction_session_timeout; its late commit fails (503) and keeps nothing", async () => {
    const url = await cluster.createDatabase();
    const { contextIds } = await seedContexts(url, ["paused"]);
    const n = await node(`${url}?idle_in_transaction_session_timeout=1000`);
    const outside = inspect(url);
    try {
      let resume!: () => void;
      const paused = new Promise<void>((r) => (resume = r));
      let locked!: () => void;
      const holding = new Promise<void>((r) => (locked = r));
      const tx = n.store.sql.tx(async (t) => {
        await t.run("UPDATE contexts SET name = 'from-the-paused-node' WHERE uuid = ?", [contextIds[0]]);
        locked();
        await paused;
        await t.run("UPDATE contexts SET type = 'late' WHERE uuid = ?", [contextIds[0]]);
      });
      tx.catch(() => undefined);
      await holding;
      // Another writer gets the row once the server has ended the idle transaction.
      await outside.unsafe("UPDATE contexts SET name = 'from-elsewhere' WHERE uuid = $1", [contextIds[0]]);
      resume();
      await expect(tx).rejects.toMatchObject({ code: "database_unavailable" });
      expect((await outside.unsafe("SELECT name, type FROM contexts WHERE uuid = $1", [contextIds[0]]))[0]).toEqual({ name: "from-elsewhere", type: "mortgage" });
    } finally {
      await outside.end();
    }
  });
});

describe("a multi-host URL", () => {
  it("with target_session_attrs=read-write reaches the primary whatever the hosts' order (a hot standby is passed over)", async () => {
    const primary = await startPostgres();
    const standby = await primary.startReplica();
    try {
      const single = await primary.createDatabase();
      const name = single.slice(single.lastIndexOf("/") + 1);
      // The standby has the database once it has replayed its creation.
      await until(async () => (await standby.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).length > 0, "the standby to have the database");
      const url = `postgres://dds@127.0.0.1:${standby.port},127.0.0.1:${primary.port}/${name}?target_session_attrs=read-write`;
      const n = await node(url);
      const token = await tokenFor(url, "write");
      expect((await call(n.origin, token, "POST", "/v1/contexts", { name: "on-the-primary" }, "mh-1")).status).toBe(201);
      const [where] = await n.store.sql.all<{ port: number; standby: boolean }>("SELECT inet_server_port() AS port, pg_is_in_recovery() AS standby");
      expect({ port: Number(where.port), standby: where.standby }).toEqual({ port: primary.port, standby: false });
    } finally {
      await standby.stop();
      await primary.stop();
    }
  });
});

describe("a node whose server turns read-only", () => {
  it("makes new connections instead of failing with 500: 503 while no server takes writes, then serves", async () => {
    const own = await startPostgres();
    try {
      const url = await own.createDatabase();
      const token = await tokenFor(url, "write");
      const n = await node(`${url}?target_session_attrs=read-write`);
      expect((await call(n.origin, token, "POST", "/v1/contexts", { name: "before" }, "ro-1")).status).toBe(201);
      await own.query("ALTER SYSTEM SET default_transaction_read_only = on");
      await own.query("SELECT pg_reload_conf()");
      await until(async () => {
        const r = await call(n.origin, token, "POST", "/v1/contexts", { name: "during" }, "ro-2");
        expect(r.status).not.toBe(500);
        return r.status === 503 && r;
      }, "writes to be refused");
      await own.query("ALTER SYSTEM RESET default_transaction_read_only");
      await own.query("SELECT pg_reload_conf()");
      await until(async () => (await call(n.origin, token, "POST", "/v1/contexts", { name: "during" }, "ro-2")).status === 201, "writes to be taken again");
    } finally {
      await own.stop();
    }
  });
});

/**
 * A TCP proxy in front of PostgreSQL whose network can be cut: `cut` stops every byte both
 * ways (nothing is closed, as when a link or a host goes silent), `mend` lets them through.
 */
async function cuttableProxy(target: number) {
  let cut = false;
  const connections: (() => void)[] = [];
  const server = createServer((client) => {
    const upstream = connect(target, "127.0.0.1");
    const pipe = (from: Socket, to: Socket) =>
      from.on("data", (chunk) => {
        if (!cut) to.write(chunk);
        // Held, not forwarded: after mending, a connection from before the cut is still mute.
      });
    pipe(client, upstream);
    pipe(upstream, client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
    connections.push(close);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as { port: number }).port,
    cut: () => void (cut = true),
    mend: () => void (cut = false),
    close: () => {
      for (const close of connections) close();
      server.close();
    },
  };
}

describe("a node whose network to the database is cut", () => {
  it("does not hang: what is stuck is answered 503 once a probe finds the database gone, then it serves again when the network is back", async () => {
    const url = await cluster.createDatabase();
    const token = await tokenFor(url, "read");
    const proxy = await cuttableProxy(cluster.port);
    try {
      const n = await node(url.replace(`127.0.0.1:${cluster.port}`, `127.0.0.1:${proxy.port}`));
      expect((await call(n.origin, token, "GET", "/v1/contexts?limit=1")).status).toBe(200);
      proxy.cut();
      // The statement waits on a silent connection until the node notices (a statement
      // stuck for 5 s starts a probe, which fails) and drops its connections: a 503.
      expect(await call(n.origin, token, "GET", "/v1/contexts?limit=1")).toEqual(unavailable);
      expect(await call(n.origin, token, "GET", "/v1/contexts?limit=2")).toEqual(unavailable);
      proxy.mend();
      await until(async () => (await call(n.origin, token, "GET", "/v1/contexts?limit=1")).status === 200, "the node to serve again");
    } finally {
      proxy.close();
    }
  });
});
