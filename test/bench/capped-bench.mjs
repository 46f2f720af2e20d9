// Issue 25: do PostgreSQL nodes add up? Each `ddsctl serve` node is held to a fixed share of a
// core in a cgroup of its own (v1 `cpu` controller: cpu.cfs_quota_us of cpu.cfs_period_us,
// the node's PID written to cgroup.procs; `cpuacct` for what it used), PostgreSQL and the
// load generator (this process) unconstrained. 8 clients send 240 keyed bulks of 100 new
// records (identity `ssn`, income `max`, one rule) over 40 contexts, round-robin over the
// nodes, timed until every context is resolved (each node first warmed with 30 bulks of the
// same feed into 40 other contexts, resolved before the clock starts: see WARM_BULKS); an interleaved feed (each bulk touches all
// 40 contexts) and a grouped one (each bulk one context); 1 vs 2 nodes at 0.35 core and 1
// vs 4 at 0.2 core. Printed per setup: the time until all resolved, when the bulks were all
// answered, each node's CPU (its group's cpuacct.usage) and PostgreSQL's (utime + stime of
// its processes) per 1,000 resolved contributions, and what the nodes' backends waited on
// (pg_stat_activity and pg_locks, sampled every 20 ms). The machine is shared: the nodes'
// groups, and one without a limit holding PostgreSQL and this process, get a high cpu.shares,
// so other work on the machine does not take the share a node is held to.
//
// Needs root and the cgroup v1 cpu and cpuacct hierarchies: without them it says so and
// fails (the run exits non-zero), it never skips.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { createHttpClient } from "../../dist/client/index.js";
import { issueToken } from "../../dist/engine/auth/index.js";
import { openLocalEngine } from "../../dist/engine/local-engine.js";
import { startPostgres } from "../helpers/pg-cluster.mjs";
import { childrenOf, parentOf, processCpu } from "./cpu-meter.mjs";
import { serve } from "./scale-bench.mjs";

const CPU = "/sys/fs/cgroup/cpu";
const CPUACCT = "/sys/fs/cgroup/cpuacct";
const PERIOD_US = 100_000;
const CONTEXTS = 40;
const BULKS = 240;
const ITEMS = 100;
const CLIENTS = 8;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export const MODEL = {
  name: "Applicant",
  identity: ["ssn"],
  fields: [
    { name: "ssn", type: "string" },
    { name: "income", type: "number", resolution: { policy: "max" } },
  ],
};
export const RULE = { name: "some-high-income", category: "affordability", severity: "medium", expression: { some: [{ var: "Applicant.income" }, { ">": [{ var: "" }, 100000] }] } };

/** Why this machine cannot hold nodes to a share of a core, or undefined when it can. */
export function cgroupsMissing() {
  if (process.getuid?.() !== 0) return "it must run as root (it writes the nodes' PIDs to cgroup.procs)";
  for (const dir of [CPU, CPUACCT]) if (!existsSync(`${dir}/cgroup.procs`)) return `the cgroup v1 hierarchy ${dir} is not mounted`;
  if (!existsSync(`${CPU}/cpu.cfs_quota_us`)) return `${CPU} has no cpu.cfs_quota_us (CFS bandwidth control)`;
  return undefined;
}

/**
 * cpu.shares of the bench's groups (the default is 1024): the machine is shared, and other
 * work on it takes its turn after the nodes (within their quota), PostgreSQL and the load
 * generator, so a node gets the share of a core it is held to.
 */
const SHARES = 8192;

/** A cgroup in the cpu and cpuacct hierarchies holding its processes to `core` of a core (no limit: undefined). */
function cgroup(name, core) {
  const dirs = [`${CPU}/${name}`, `${CPUACCT}/${name}`];
  for (const d of dirs) if (!existsSync(d)) mkdirSync(d);
  writeFileSync(`${dirs[0]}/cpu.cfs_period_us`, String(PERIOD_US));
  writeFileSync(`${dirs[0]}/cpu.cfs_quota_us`, core === undefined ? "-1" : String(Math.round(core * PERIOD_US)));
  writeFileSync(`${dirs[0]}/cpu.shares`, String(SHARES));
  return {
    add(pid) {
      for (const d of dirs) writeFileSync(`${d}/cgroup.procs`, String(pid));
    },
    /** CPU seconds used by the group's processes so far. */
    usage: () => Number(readFileSync(`${dirs[1]}/cpuacct.usage`, "utf8")) / 1e9,
    /** Times the group was held back by its quota so far, and for how long (s). */
    throttled() {
      const stat = Object.fromEntries(readFileSync(`${dirs[0]}/cpu.stat`, "utf8").trim().split("\n").map((l) => l.split(" ")));
      return { periods: Number(stat.nr_throttled), seconds: Number(stat.throttled_time) / 1e9 };
    },
    /** Moves the group's processes back to the root groups, then removes it. */
    remove() {
      for (const [i, d] of dirs.entries()) {
        for (const pid of readFileSync(`${d}/cgroup.procs`, "utf8").split("\n").filter(Boolean)) {
          try {
            writeFileSync(`${[CPU, CPUACCT][i]}/cgroup.procs`, pid);
          } catch {
            // Exited meanwhile.
          }
        }
      }
      for (const d of dirs) {
        try {
          rmdirSync(d);
        } catch {
          // Still holds a process that has not exited yet: it goes with the next run's cleanup.
        }
      }
    },
  };
}

/** The bulks of a feed: `interleaved` spreads each bulk over every context, `grouped` gives each bulk one context. */
export function feed(kind, contextIds, modelId, prefix = "feed") {
  const bulks = [];
  for (let b = 0; b < BULKS; b++) {
    const items = [];
    for (let i = 0; i < ITEMS; i++) {
      const n = b * ITEMS + i;
      const contextId = contextIds[kind === "interleaved" ? n % CONTEXTS : b % CONTEXTS];
      items.push({ contextId, modelId, sourceId: "feed", sourceType: "integration", data: { ssn: `${prefix}-${n}`, income: 20_000 + ((n * 7919) % 180_000) } });
    }
    bulks.push({ key: `capped-${prefix}-${kind}-${b}`, items });
  }
  return bulks;
}

/** Bulks each node is sent before the clock starts (into contexts of their own), by default. */
const WARM_BULKS = 30;

/** Waits until every context is resolved (at most 10 minutes). */
async function resolvedAll(db) {
  const t0 = performance.now();
  for (;;) {
    const [row] = await db.unsafe("SELECT COUNT(*)::int AS n FROM contexts WHERE freshness != 'resolved'");
    if (row.n === 0) return;
    if (performance.now() - t0 > 600_000) throw new Error("the contexts did not resolve within 10 minutes");
    await sleep(10);
  }
}

/** Samples what the nodes' backends wait on (application_name LIKE 'dds-capped-%'), every 20 ms, until stopped. */
function waitSampler(db) {
  let samples = 0;
  let lockSamples = 0;
  const events = new Map();
  const locks = new Map();
  /** For lock waits: the waiting statement and what holds it (its state and statement). */
  const statements = new Map();
  let done = false;
  const loop = (async () => {
    while (!done) {
      const rows = await db.unsafe(
        `SELECT a.wait_event_type AS type, a.wait_event AS event,
           (SELECT string_agg(DISTINCT l.locktype || COALESCE(' ' || l.relation::regclass::text, '') || ' ' || l.mode, ', ')
              FROM pg_locks l WHERE l.pid = a.pid AND NOT l.granted) AS awaited,
           CASE WHEN a.wait_event_type = 'Lock' THEN left(regexp_replace(a.query, '\\s+', ' ', 'g'), 50) || ' <- ' ||
             (SELECT string_agg(DISTINCT b.state || ': ' || left(regexp_replace(b.query, '\\s+', ' ', 'g'), 40), ' | ')
                FROM pg_stat_activity b WHERE b.pid = ANY(pg_blocking_pids(a.pid))) END AS who
         FROM pg_stat_activity a WHERE a.application_name LIKE 'dds-capped-%' AND a.state = 'active'`,
      );
      samples++;
      let locked = false;
      for (const r of rows) {
        const name = r.type ? `${r.type}/${r.event}` : "CPU (no wait)";
        events.set(name, (events.get(name) ?? 0) + 1);
        if (r.type === "Lock") {
          locked = true;
          locks.set(r.awaited ?? r.event, (locks.get(r.awaited ?? r.event) ?? 0) + 1);
          if (r.who) statements.set(r.who, (statements.get(r.who) ?? 0) + 1);
        }
      }
      if (locked) lockSamples++;
      await sleep(20);
    }
  })();
  return async () => {
    done = true;
    await loop;
    const top = (m, n) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
    return { samples, lockShare: samples ? lockSamples / samples : 0, events: top(events, 4), locks: top(locks, 3), statements: top(statements, 3) };
  };
}

/** One setup on a new database: `nodes` nodes each held to `core`, the `kind` feed; its figures. */
export async function runSetup(cluster, { kind, nodes, core, trace, nodeArgs, warm = true }) {
  const url = await cluster.createDatabase();
  const engine = await openLocalEngine({ db: url });
  const model = await engine.createModel(MODEL);
  await engine.setModelStatus(model.modelId, "active");
  await engine.createRule(RULE);
  const contextIds = [];
  for (let c = 0; c < CONTEXTS; c++) contextIds.push((await engine.createContext({ name: `capped-${c}`, type: "case" })).contextId);
  await engine.runPipeline();
  const { token } = await issueToken(engine.ctx.store, { workspace: "default", scopes: ["write"] });
  const bulks = feed(kind, contextIds, model.modelId);
  // Contexts of the warm-up (see WARM_BULKS), never touched by the timed feed.
  const warmIds = [];
  for (let c = 0; c < CONTEXTS; c++) warmIds.push((await engine.createContext({ name: `capped-warm-${c}`, type: "case" })).contextId);
  await engine.runPipeline();
  await engine.close();

  const db = postgres(url, { max: 1, onnotice: () => undefined });
  const [{ pid: inspectorPid }] = await db.unsafe("SELECT pg_backend_pid() AS pid");
  const postmaster = parentOf(Number(inspectorPid));
  const servers = [];
  const groups = [];
  try {
    for (let i = 0; i < nodes; i++) {
      const s = await serve(url, [], { env: { PGAPPNAME: `dds-capped-${i}` }, nodeArgs });
      const g = cgroup(`dds-capped-${process.pid}-${i}`, core);
      g.add(s.pid);
      servers.push(s);
      groups.push(g);
    }
    const clients = servers.map((s) => createHttpClient({ baseUrl: `${s.origin}/v1`, token }));
    // Warm each node (its first request loads the schemas and models) before the clock starts.
    for (const c of clients) await c.listContexts({ limit: 1 });
    if (warm) {
      // Each node runs the code the feed runs (bulks, passes) until it is compiled, as a node
      // that has served for a while has it. Unwarmed, each added node paid its compilation
      // inside the timed run: two nodes used 7.8 CPU seconds for the interleaved feed where
      // one used 6.2 (warmed: 6.2 and 6.7, same pair of runs).
      const warmBulks = feed(kind, warmIds, model.modelId, "warm").slice(0, WARM_BULKS * nodes);
      let w = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          for (let b = w++; b < warmBulks.length; b = w++) await clients[b % nodes].bulkCreateContributions({ items: warmBulks[b].items }, { idempotencyKey: warmBulks[b].key });
        }),
      );
      await resolvedAll(db);
    }
    const [{ n: storedBefore }] = await db.unsafe("SELECT COUNT(*)::int AS n FROM contributions");
    const postgresPids = () => [postmaster, ...childrenOf(postmaster)].filter((p) => p !== Number(inspectorPid));
    const pgBefore = new Map(postgresPids().map((p) => [p, processCpu(p)]));
    const nodeBefore = groups.map((g) => g.usage());
    const throttledBefore = groups.map((g) => g.throttled());
    const stopSampling = waitSampler(db);
    let next = 0;
    const t0 = performance.now();
    // Diagnostics only (scripts pass `trace`): freshness and CPU every half second.
    const tracer = trace && setInterval(async () => {
      const rows = await db.unsafe("SELECT freshness, COUNT(*)::int AS n FROM contexts GROUP BY freshness");
      trace({ at: (performance.now() - t0) / 1000, sent: next, freshness: Object.fromEntries(rows.map((r) => [r.freshness, r.n])), cpu: groups.map((g, i) => g.usage() - nodeBefore[i]) });
    }, 500);
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let b = next++; b < bulks.length; b = next++) {
          const res = await clients[b % nodes].bulkCreateContributions({ items: bulks[b].items }, { idempotencyKey: bulks[b].key });
          if (res.summary.failed > 0) throw new Error(`bulk ${b}: ${JSON.stringify(res.items.find((i) => i.error))}`);
        }
      }),
    );
    const sent = (performance.now() - t0) / 1000;
    const waits = await stopSampling();
    await resolvedAll(db);
    const seconds = (performance.now() - t0) / 1000;
    if (tracer) clearInterval(tracer);
    const nodeCpu = groups.map((g, i) => g.usage() - nodeBefore[i]);
    const throttled = groups.map((g, i) => g.throttled().seconds - throttledBefore[i].seconds);
    let pgCpu = 0;
    for (const p of postgresPids()) pgCpu += processCpu(p) - (pgBefore.get(p) ?? 0);
    const [{ n: storedAfter }] = await db.unsafe("SELECT COUNT(*)::int AS n FROM contributions");
    const stored = storedAfter - storedBefore;
    if (stored !== BULKS * ITEMS) throw new Error(`${stored} contributions stored, ${BULKS * ITEMS} sent`);
    for (const c of clients) await c.close();
    return { seconds, sent, nodeCpu, throttled, pgCpu, waits };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    for (const g of groups) g.remove();
    await db.end();
  }
}

/** PostgreSQL (its server and every backend it forks) and this process, the load generator: unlimited, at the nodes' priority. */
export async function prioritise(cluster) {
  const unlimited = cgroup(`dds-capped-${process.pid}-free`, undefined);
  const probe = postgres(cluster.url("postgres"), { max: 1, onnotice: () => undefined });
  const [{ pid }] = await probe.unsafe("SELECT pg_backend_pid() AS pid");
  const postmaster = parentOf(Number(pid));
  await probe.end();
  for (const p of [postmaster, ...childrenOf(postmaster), process.pid]) {
    try {
      unlimited.add(p);
    } catch (err) {
      // A backend that exited meanwhile (the probe's own).
      if (err.code !== "ESRCH") throw err;
    }
  }
  return unlimited;
}

const label = ({ kind, nodes, core }) => `capped ${kind}, ${nodes} node${nodes > 1 ? "s" : ""} at ${core} core`;

/** Runs the section: `runs` rounds of every setup (taking turns), medians reported. */
export async function runCappedBench({ runs = 3 } = {}) {
  const missing = cgroupsMissing();
  if (missing) throw new Error(`the capped-nodes bench cannot run here: ${missing}`);
  const setups = [];
  for (const kind of ["interleaved", "grouped"]) {
    for (const [core, counts] of [
      [0.35, [1, 2]],
      [0.2, [1, 4]],
    ]) {
      for (const nodes of counts) setups.push({ kind, nodes, core });
    }
  }
  const results = new Map(setups.map((s) => [label(s), []]));
  const cluster = await startPostgres();
  let unlimited;
  try {
    unlimited = await prioritise(cluster);
    for (let r = 0; r < runs; r++) {
      for (const s of setups) results.get(label(s)).push(await runSetup(cluster, s));
    }
  } finally {
    await cluster.stop();
    unlimited?.remove();
  }
  const out = [];
  const k = (BULKS * ITEMS) / 1000;
  for (const s of setups) {
    const rs = results.get(label(s));
    const seconds = median(rs.map((x) => x.seconds));
    out.push({ name: `${label(s)}: until all resolved`, rows: BULKS * ITEMS, seconds });
    const perNode = Array.from({ length: s.nodes }, (_, i) => median(rs.map((x) => x.nodeCpu[i])));
    const busy = perNode.map((c) => `${Math.round((100 * c) / (seconds * s.core))} %`).join(", ");
    const w = rs[rs.length - 1].waits;
    out.push({
      note:
        `${label(s)}: all resolved in ${rs.map((x) => x.seconds.toFixed(1)).join(" / ")} s (bulks answered in ${rs.map((x) => x.sent.toFixed(1)).join(" / ")} s); ` +
        `CPU per 1,000 resolved contributions: nodes ${(perNode.reduce((a, b) => a + b, 0) / k).toFixed(3)} s (each ${perNode.map((c) => (c / k).toFixed(3)).join(", ")}; ${busy} of its cap over the run), ` +
        `PostgreSQL ${(median(rs.map((x) => x.pgCpu)) / k).toFixed(3)} s; held back by the quota ${median(rs.map((x) => x.throttled.reduce((a, b) => a + b, 0))).toFixed(1)} s in all; ` +
        `while the bulks ran (last run, ${w.samples} samples) a node's backend waited on a lock in ${Math.round(100 * w.lockShare)} % of samples` +
        `${w.locks.length ? ` (${w.locks.map(([n, c]) => `${n}: ${c}`).join("; ")})` : ""}; active backends: ${w.events.map(([n, c]) => `${n} ${c}`).join(", ")}` +
        `${w.statements.length ? `; lock waits, the waiting statement <- its blocker: ${w.statements.map(([n, c]) => `${n} (${c})`).join("; ")}` : ""}`,
    });
  }
  const rate = (s) => median(results.get(label(s)).map((x) => 1 / x.seconds));
  for (const kind of ["interleaved", "grouped"]) {
    out.push({
      name: `capped ${kind}: 2 nodes vs 1 at 0.35 core`,
      ratio: rate({ kind, nodes: 2, core: 0.35 }) / rate({ kind, nodes: 1, core: 0.35 }),
      ...(kind === "interleaved" ? { target: ">= 1.60", targetValue: 1.6 } : { target: "-", targetValue: 0 }),
    });
    out.push({ name: `capped ${kind}: 4 nodes vs 1 at 0.2 core`, ratio: rate({ kind, nodes: 4, core: 0.2 }) / rate({ kind, nodes: 1, core: 0.2 }), target: "-", targetValue: 0 });
  }
  return out;
}
