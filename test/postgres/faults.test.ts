import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { spawnServe, tokenFor, type ServeProcess } from "../helpers/pg-nodes.js";
import { runLoad, secondsToServe, startProbers, statusesBetween, type Batch, type Seen } from "./fault-load.js";
import { allResolved, caseItems, inspect, resolvedState, seedContexts, unresolvedReport, until, withStore } from "./support.js";

/**
 * The faults a platform team meets, each during a keyed bulk load through two real
 * `ddsctl serve` processes on one PostgreSQL (with a streaming standby): a restart, the
 * database stopped for 15 s, every backend of the nodes terminated, a node frozen past its
 * lease (SIGSTOP) then resumed, and a failover to the promoted standby. For each: no node
 * exits; what is answered while the database is away is 503 problem+json with Retry-After
 * only; each node serves again soon after (the figure is printed; the bound asserted is
 * loose, for a loaded machine); every acknowledged contribution is stored once. At the end:
 * one record per identity, one evaluation per rule per context, and passes over the same
 * evidence give the same state again.
 *
 * Each fault prints one line `[fault] {…}` with its figures (quoted in the closing notes).
 */
const CONTEXTS = 10;
const BATCHES_PER_FAULT = 24;
const ITEMS = 100;
/** The nodes' lease: a frozen node's claims are taken over after this long. */
const LEASE_S = 5;
/** Loose enough for a loaded CI machine; the real figure is printed with each fault. */
const SERVE_AGAIN_BOUND_S = 20;

let primary: PgCluster;
let standby: PgCluster;
let url: string;
let token: string;
let db: postgres.Sql;
let models: Awaited<ReturnType<typeof seedContexts>>["models"];
let contextIds: string[];
const nodes: ServeProcess[] = [];
/** Waits for every context to be resolved; a time-out says which are not, and what the nodes logged last. */
const untilAllResolved = (db: Parameters<typeof allResolved>[0], what: string, timeoutMs?: number) =>
  until(allResolved(db), what, timeoutMs).catch(async (err: Error) => {
    throw new Error(`${err.message}\n${await unresolvedReport(db, nodes.map((n) => n.stderr))}`);
  });
const exits: string[] = [];
const acknowledged: Batch[] = [];
let made = 0;
/** A webhook receiver: the dispatchers must deliver through every fault too. */
let receiver: Server;
const deliveries: number[] = [];
/** When the last fault was over (performance.now()). */
let afterFaults = 0;

beforeAll(async () => {
  primary = await startPostgres();
  standby = await primary.startReplica();
  const single = await primary.createDatabase();
  const name = single.slice(single.lastIndexOf("/") + 1);
  // As libpq reads it: the first host that takes writes.
  url = `postgres://dds@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/${name}?target_session_attrs=read-write`;
  ({ models, contextIds } = await seedContexts(url, Array.from({ length: CONTEXTS }, (_, i) => `fault-${i}`)));
  token = await tokenFor(url, "write");
  receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      deliveries.push(performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  for (let i = 0; i < 2; i++) {
    const node = await spawnServe(url, ["--lease", `${LEASE_S}s`]);
    void node.child.then((r) => exits.push(`node ${i} exited (${r.exitCode ?? r.signal}): ${node.stderr().slice(-500)}`));
    nodes.push(node);
  }
  db = inspect(url);
  const hook = await fetch(`${nodes[0].origin}/v1/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${await tokenFor(url, "admin")}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ["context.resolved"] }),
  });
  expect(hook.status).toBe(201);
}, 120_000);
afterAll(async () => {
  for (const n of nodes) {
    if (n.child.pid) process.kill(n.child.pid, "SIGCONT");
    n.child.kill("SIGKILL");
  }
  await Promise.all(nodes.map((n) => n.child));
  await db?.end();
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
  await standby?.stop();
  await primary?.stop();
});

/** The next batches of the load: unique sources, so every stored row is one item sent once. */
function batches(n: number): Batch[] {
  return Array.from({ length: n }, () => {
    const b = made++;
    const items = caseItems(models, contextIds[b % CONTEXTS], ITEMS, b).map((item, i) => ({ ...item, sourceId: `b${b}-i${i}` }));
    return { key: `fault-batch-${b}`, items };
  });
}

interface FaultReport {
  fault: string;
  nodeExits: number;
  /** Answers by status: while the database was down, or (nothing went down) from the fault until both nodes served again. */
  answers: { while: "database down" | "the fault"; byStatus: Record<string, number> };
  secondsToServeAgain: number[];
  sent: number;
  stored: number;
  lost: number;
  doubled: number;
}

/** What is stored, against what was acknowledged (ids and sources). */
async function tally(): Promise<{ sent: number; stored: number; lost: number; doubled: number; missing: string[] }> {
  const ids = new Set(acknowledged.flatMap((b) => b.ids ?? []));
  const rows = (await db.unsafe("SELECT uuid::text AS id FROM contributions")).map((r) => r.id as string);
  const stored = new Set(rows);
  const [dup] = await db.unsafe("SELECT COALESCE(SUM(n - 1), 0)::int AS doubled FROM (SELECT COUNT(*) AS n FROM contributions GROUP BY source_id, record_id) s WHERE n > 1");
  const missing = [...ids].filter((id) => !stored.has(id));
  return { sent: acknowledged.reduce((n, b) => n + b.items.length, 0), stored: rows.length, lost: missing.length, doubled: Number(dup.doubled), missing };
}

/**
 * Runs a load of BATCHES_PER_FAULT batches, performs `fault` once a quarter of them were
 * acknowledged, and judges it: `fault` returns when the database went away (down) and when
 * it is back (recovered) in performance.now() time; down may be undefined (nothing went
 * away for the clients: a killed backend, a frozen node).
 */
async function underLoad(name: string, fault: (answers: () => Seen[]) => Promise<{ down?: number; recovered: number; quietUntil?: number }>, count = BATCHES_PER_FAULT): Promise<FaultReport & { seen: Seen[]; window: [number, number] }> {
  const seen: Seen[] = [];
  const probes: Seen[] = [];
  const work = batches(count);
  const probers = startProbers(nodes.map((n) => n.origin), token, probes);
  const load = runLoad(nodes.map((n) => n.origin), token, work, seen);
  load.catch(() => undefined);
  await until(() => work.filter((b) => b.ids).length >= count / 4 || undefined, `${name}: the load to be under way`);
  const started = performance.now();
  const { down, recovered, quietUntil } = await fault(() => [...seen, ...probes]);
  // A batch the nodes keep refusing would hang here: the test's own time-out reports it.
  await load;
  // Judged on the probers' answers after the recovery: they ask every 50 ms.
  await until(() => secondsToServe(probes, nodes.length, recovered).every(Number.isFinite) || undefined, `${name}: both nodes to serve again`);
  await probers.stop();
  acknowledged.push(...work);
  const all = [...seen, ...probes];
  const counts = await tally();
  const serving = secondsToServe(probes, nodes.length, recovered);
  const until_ = down === undefined ? recovered + Math.max(...serving) * 1000 : recovered;
  const report: FaultReport = {
    fault: name,
    nodeExits: exits.length,
    answers: { while: down === undefined ? "the fault" : "database down", byStatus: statusesBetween(all, down ?? started, until_) },
    secondsToServeAgain: serving,
    sent: counts.sent,
    stored: counts.stored,
    lost: counts.lost,
    doubled: counts.doubled,
  };
  console.log(`[fault] ${JSON.stringify(report)}`);
  return { ...report, seen: all, window: [down ?? started, quietUntil ?? recovered] };
}

/** Every answer sent and answered in the window is a 503 problem+json with Retry-After (or, `allowing`, one of those statuses). */
function expectOnly503(seen: Seen[], [from, to]: [number, number], allowing: number[] = []) {
  const inside = seen.filter((s) => s.sentAt >= from && s.at <= to);
  const bad = inside.filter((s) => !allowing.includes(s.status) && !(s.status === 503 && s.problem && s.retryAfter && s.code === "database_unavailable"));
  expect(bad.slice(0, 5), `${bad.length} of ${inside.length} answers were not 503 problem+json with Retry-After`).toEqual([]);
}

function expectHealthy(report: FaultReport) {
  expect(exits).toEqual([]);
  expect(report.secondsToServeAgain.every((s) => s <= SERVE_AGAIN_BOUND_S), `serving again took ${report.secondsToServeAgain.join(", ")} s`).toBe(true);
  expect({ lost: report.lost, doubled: report.doubled, stored: report.stored }).toEqual({ lost: 0, doubled: 0, stored: report.sent });
}

// Each fault runs a load and waits out its outage: minutes, not the default minute per test.
describe("two serve nodes through the faults of their PostgreSQL", { timeout: 240_000 }, () => {
  it("pg_ctl restart -m fast", async () => {
    const report = await underLoad("restart", async () => {
      const down = performance.now();
      await primary.restart("fast");
      return { down, recovered: performance.now() };
    });
    // During a restart requests may also still succeed (before the stop, after the start).
    expectOnly503(report.seen, report.window, [200, 409]);
    expectHealthy(report);
  });

  it("the database stopped for 15 s, then started", async () => {
    const report = await underLoad("stopped 15 s", async () => {
      await primary.halt("fast");
      const down = performance.now();
      await new Promise((r) => setTimeout(r, 15_000));
      const back = performance.now();
      await primary.resume();
      return { down, recovered: back };
    });
    expectOnly503(report.seen, report.window);
    expect(report.answers.byStatus["503"]).toBeGreaterThan(0);
    expectHealthy(report);
  });

  it("every backend of the nodes terminated (pg_terminate_backend)", async () => {
    const report = await underLoad("backends terminated", async () => {
      const at = performance.now();
      const killed = await primary.query("SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = 'ddsctl'");
      expect(killed.length).toBeGreaterThanOrEqual(nodes.length * 2);
      return { recovered: at };
    });
    // Nothing but the statements in flight fails: those are 503, the retries succeed.
    expectOnly503(report.seen, report.window, [200, 409]);
    expectHealthy(report);
  });

  it("a node frozen (SIGSTOP) past its lease, then resumed: the other serves, its claims are taken over, its late commit is fenced", async () => {
    const frozen = nodes[0];
    const pid = frozen.child.pid!;
    let stranded: { id: string; token: number } | undefined;
    const report = await underLoad("node frozen past its lease", async () => {
      // Frozen in the middle of a pass if it can be: frozen as soon as it holds a claim, and
      // thawed at once when the pass ended before the freeze landed (tries for 30 s at most).
      const tryUntil = performance.now() + 30_000;
      while (!stranded && performance.now() < tryUntil) {
        const held = await until(async () => (await heldBy(pid)).length > 0 || undefined, "the node to hold a claim", 10_000).catch(() => undefined);
        process.kill(pid, "SIGSTOP");
        if (held) [stranded] = await heldBy(pid);
        if (!stranded) process.kill(pid, "SIGCONT");
      }
      if (!stranded) process.kill(pid, "SIGSTOP");
      await new Promise((r) => setTimeout(r, (LEASE_S + 3) * 1000));
      process.kill(pid, "SIGCONT");
      return { recovered: performance.now() };
      // A longer load: passes go on (and can be caught) while the node is frozen.
    }, 3 * BATCHES_PER_FAULT);
    // The other node answered throughout: never a failure there, at most a 409 while the
    // frozen node held a key's mark, or a wait on a row the frozen node had locked (bounded
    // by idle_in_transaction_session_timeout).
    const other = report.seen.filter((s) => s.node === 1 && s.sentAt >= report.window[0] && s.at <= report.window[1]);
    expect(other.filter((s) => s.status === 500 || (s.status >= 400 && s.status < 500 && s.status !== 409))).toEqual([]);
    expect(other.filter((s) => s.status === 200).length).toBeGreaterThan(0);
    expectHealthy(report);
    if (stranded) {
      await untilAllResolved(db, "every context to be resolved");
      const [after] = await db.unsafe("SELECT claim_token AS token FROM contexts WHERE id = $1", [stranded.id]);
      // Claimed again after the frozen node's claim: its commit, if it came late, was refused.
      expect(Number(after.token)).toBeGreaterThan(stranded.token);
    }
    console.log(`[fault] frozen node held a claim when frozen: ${stranded ? `yes (context ${stranded.id}, token ${stranded.token})` : "no"}`);
  });

  it("failover: the primary stopped, the standby promoted; the nodes carry on against it", async () => {
    const report = await underLoad("failover", async (answers) => {
      await primary.halt("fast");
      const down = performance.now();
      // The standby takes writes a moment before its promotion returns, so the answers judged
      // are those from before it was asked to: held open until both nodes have answered
      // without a primary (their probes ask every 50 ms), whatever the machine's speed.
      await until(() => [0, 1].every((n) => answers().some((a) => a.node === n && a.sentAt >= down && a.status === 503)) || undefined, "failover: both nodes to answer 503 without a primary");
      const promoting = performance.now();
      await standby.promote();
      return { down, recovered: performance.now(), quietUntil: promoting };
    });
    expectOnly503(report.seen, report.window);
    expectHealthy(report);
    afterFaults = performance.now();
    const [where] = await db.unsafe("SELECT inet_server_port() AS port, pg_is_in_recovery() AS standby");
    expect({ port: Number(where.port), standby: where.standby }).toEqual({ port: standby.port, standby: false });
  });

  it("ends right: every contribution once, one record per identity, one evaluation per rule per context, and passes over the same evidence agree", async () => {
    const counts = await tally();
    expect({ lost: counts.lost, doubled: counts.doubled, stored: counts.stored }).toEqual({ lost: 0, doubled: 0, stored: counts.sent });
    expect(counts.sent).toBe(made * ITEMS);
    await untilAllResolved(db, "every context to be resolved", 120_000);
    const twice = await db.unsafe("SELECT context_id, model_id, identity_key FROM records WHERE deleted_at IS NULL GROUP BY 1, 2, 3 HAVING COUNT(*) > 1");
    expect(twice).toEqual([]);
    const [rules] = await db.unsafe("SELECT COUNT(*)::int AS n FROM rules WHERE status = 'active' AND deleted_at IS NULL");
    const perContext = await db.unsafe("SELECT context_id, COUNT(*)::int AS n, COUNT(DISTINCT rule_id)::int AS rules FROM evaluations GROUP BY context_id");
    expect(perContext).toHaveLength(CONTEXTS);
    for (const c of perContext) expect({ n: c.n, rules: c.rules }).toEqual({ n: rules.n, rules: rules.n });
    await withStore(url, async (store) => {
      const before = await resolvedState(store.sql);
      await store.sql.run("UPDATE contexts SET freshness = 'stale', evidence_version = evidence_version + 1");
      store.sql.signal("work");
      await untilAllResolved(db, "every context to be resolved again", 120_000);
      expect(await resolvedState(store.sql)).toEqual(before);
    });
    // The webhook dispatchers delivered through it all (and after the failover): nothing left pending or failed.
    await until(async () => (await db.unsafe("SELECT 1 FROM webhook_deliveries WHERE status != 'delivered' LIMIT 1")).length === 0, "every delivery to be made", 120_000);
    const [outbox] = await db.unsafe("SELECT COUNT(*)::int AS n FROM webhook_deliveries");
    expect(outbox.n).toBeGreaterThan(0);
    expect(deliveries.length).toBeGreaterThanOrEqual(outbox.n);
    expect(deliveries.some((t) => t >= afterFaults)).toBe(true);
    console.log(`[fault] webhook deliveries: ${outbox.n} events, ${deliveries.length} POSTs received (at least once)`);
    expect(exits).toEqual([]);
    // Nothing was left to the last guard of serve (a rejection nobody handled).
    for (const n of nodes) expect(n.stderr()).not.toContain("database_error_unhandled");
    const outages = nodes.map((n) => n.stderr().split("\n").filter((l) => l.includes('"event":"db_')).length);
    console.log(`[fault] outage lines logged per node (unreachable/reachable): ${outages.join(", ")}`);
  });
});

const heldBy = (pid: number) =>
  db.unsafe(`SELECT id, claim_token AS token FROM contexts WHERE freshness = 'computing' AND claimed_by LIKE $1`, [`%:${pid}:%`]) as Promise<{ id: string; token: number }[]>;
