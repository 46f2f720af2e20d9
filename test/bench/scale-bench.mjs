// Issues 12 and 18: the service on PostgreSQL, one node, two and four, next to one node on SQLite. Bulk
// ingest and pass throughput through real `ddsctl serve` processes, then what each costs
// the database: statements and round trips per bulk request and per pass (measured
// in-process at the port), the database's share of the wall time, and lock waits.
import { execa } from "execa";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { createHttpClient } from "../../dist/client/index.js";
import { issueToken } from "../../dist/engine/auth/index.js";
import { createLocalEngine } from "../../dist/engine/local-engine.js";
import { openDatabase } from "../../dist/engine/store/db.js";
import { startPostgres } from "../helpers/pg-cluster.mjs";
import { countingSql } from "./counting-sql.mjs";
import { childrenOf, cpuMeter, parentOf } from "./cpu-meter.mjs";
import { MODELS, RULES, contributions } from "./workload.mjs";

const BIN = resolve(import.meta.dirname, "../../bin/ddsctl");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A `ddsctl serve --database <location>` process (`env` added to its environment, `nodeArgs` given to node); resolves with its origin once it listens. */
export async function serve(location, extra = [], { env = {}, nodeArgs = [] } = {}) {
  const child = execa("node", [...nodeArgs, BIN, "serve", "--port", "0", "--quiet", "--database", location, ...extra], { reject: false, env: { NO_COLOR: "1", ...env } });
  const origin = await new Promise((ok, fail) => {
    let seen = "";
    const timer = setTimeout(() => fail(new Error(`serve did not start: ${seen}`)), 30_000);
    child.stderr.on("data", (chunk) => {
      seen += chunk.toString();
      const m = /listening on (http:\S+?)\/v1/.exec(seen);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
  });
  return { origin, pid: child.pid, stop: async () => (child.kill("SIGTERM"), await child) };
}

async function setup(service, contexts) {
  const modelIds = {};
  for (const m of MODELS) {
    const created = await service.createModel(m);
    await service.setModelStatus(created.modelId, "active");
    modelIds[m.name] = created.modelId;
  }
  const ruleIds = [];
  for (const r of RULES) ruleIds.push((await service.createRule(r)).ruleId);
  const contextIds = [];
  for (let i = 0; i < contexts; i++) contextIds.push((await service.createContext({ name: `case-${i}`, type: "mortgage" })).contextId);
  return { modelIds, ruleIds, contextIds };
}

async function settled(client, timeoutMs = 600_000) {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(20)) {
    const { contexts: c } = await client.pipelineStatus();
    if (c.stale === 0 && c.computing === 0) return;
  }
  throw new Error("the backlog did not resolve");
}

/** Samples lock waits while `fn` runs: the share of samples where some backend waited on a lock. */
async function withLockSampling(db, fn) {
  if (!db) return { result: await fn(), lockShare: undefined };
  let samples = 0;
  let waiting = 0;
  let done = false;
  const sampler = (async () => {
    while (!done) {
      const [row] = await db.unsafe("SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
      samples++;
      if (row.n > 0) waiting++;
      await sleep(10);
    }
  })();
  try {
    return { result: await fn(), lockShare: samples ? waiting / samples : 0 };
  } finally {
    done = true;
    await sampler;
  }
}

/** The database's busy time (ms, all statements) since the last reset, from pg_stat_statements. */
async function dbTime(db) {
  const [row] = await db.unsafe("SELECT COALESCE(SUM(total_exec_time), 0)::float AS ms, COALESCE(SUM(calls), 0)::bigint AS calls FROM pg_stat_statements");
  return { ms: Number(row.ms), calls: Number(row.calls) };
}

/** One setup: `nodes` serve processes on `location`, bulk ingest spread over them, then a re-resolution of every context. */
async function runSetup(label, location, nodes, { rows, contexts, inspector, postmaster }) {
  const store = await openDatabase(location);
  const { token } = await issueToken(store, { workspace: "default", scopes: ["admin"] });
  await store.close();
  const servers = [];
  for (let i = 0; i < nodes; i++) servers.push(await serve(location));
  const clients = servers.map((s) => createHttpClient({ baseUrl: `${s.origin}/v1`, token }));
  const { modelIds, ruleIds, contextIds } = await setup(clients[0], contexts);
  const items = [...contributions(rows, contextIds, modelIds)];
  const batches = [];
  for (let i = 0; i < items.length; i += 100) batches.push({ items: items.slice(i, i + 100) });
  const out = [];
  // CPU seconds of the nodes and of PostgreSQL per phase: on a shared 2-core machine they,
  // not the wall time alone, say what bounds a setup.
  const meter = cpuMeter({ nodes: () => servers.map((s) => s.pid), ...(postmaster ? { postgres: () => [postmaster, ...childrenOf(postmaster)] } : {}) });
  const cpuNote = (phase, m) =>
    `${label}, ${phase}: CPU seconds nodes ${m.used.nodes.toFixed(1)}${m.used.postgres !== undefined ? `, PostgreSQL ${m.used.postgres.toFixed(1)}` : ""} in ${m.wall.toFixed(1)} s; machine busy ${Math.round((100 * m.machineBusy) / (m.wall * m.cores))} % of ${m.cores} cores`;

  if (inspector) await inspector.unsafe("SELECT pg_stat_statements_reset()");
  let next = 0;
  meter.start();
  let t0 = performance.now();
  // Four requests in flight per node, each client writing to its own node.
  const ingest = await withLockSampling(inspector, () =>
    Promise.all(clients.flatMap((c) => Array.from({ length: 4 }, async () => {
      while (next < batches.length) await c.bulkCreateContributions(batches[next++]);
    }))),
  );
  const ingestSeconds = (performance.now() - t0) / 1000;
  const ingestCpu = meter.stop();
  const ingestDb = inspector && (await dbTime(inspector));
  out.push({ name: `${label}: bulk ingest, ${nodes * 4} requests in flight`, rows: items.length, seconds: ingestSeconds });
  await settled(clients[0]);

  // Every context stale at once (a rule change), resolved by the nodes' workers.
  if (inspector) await inspector.unsafe("SELECT pg_stat_statements_reset()");
  meter.start();
  t0 = performance.now();
  const passes = await withLockSampling(inspector, async () => {
    await clients[0].updateRule(ruleIds[0], { expression: { "<=": [{ var: "Loan.dti" }, 0.44] } });
    await settled(clients[0]);
  });
  const passSeconds = (performance.now() - t0) / 1000;
  const passCpu = meter.stop();
  const passDb = inspector && (await dbTime(inspector));
  out.push({ name: `${label}: passes (every context re-resolved)`, rows: contexts, seconds: passSeconds });
  for (const c of clients) await c.close();
  for (const s of servers) await s.stop();
  out.push({ note: cpuNote("ingest", ingestCpu) }, { note: cpuNote("passes", passCpu) });
  if (inspector) {
    out.push({ note: `${label}: database busy ${Math.round((100 * ingestDb.ms) / 1000 / ingestSeconds)} % of ingest wall time (${ingestDb.calls} statements), ${Math.round((100 * passDb.ms) / 1000 / passSeconds)} % of pass wall time (${passDb.calls} statements); a lock wait in ${Math.round(100 * ingest.lockShare)} % / ${Math.round(100 * passes.lockShare)} % of 10 ms samples` });
  }
  return out;
}

/** Statements and round trips per keyed bulk request (100 items) and per pass, counted at the port, in-process. */
async function costs(label, location, contexts) {
  const store = await openDatabase(location);
  const counted = countingSql(store.sql);
  const engine = createLocalEngine({ db: { ...store, sql: counted.sql }, ownsStore: false });
  const { modelIds, contextIds } = await setup(engine, contexts);
  const items = [...contributions(contexts * 100, contextIds, modelIds, 11)];
  counted.reset();
  const bulks = items.length / 100;
  for (let i = 0; i < items.length; i += 100) await engine.bulkCreateContributions({ items: items.slice(i, i + 100) }, { idempotencyKey: `cost-${i}` });
  const ingest = counted.totals();
  counted.reset();
  const run = await engine.runPipeline();
  const pass = counted.totals();
  await engine.close();
  await store.close();
  // In-process SQLite has no round trips: its figure is statements only.
  const trips = (t, n) => (store.kind === "postgres" ? `, ${(t.roundTrips / n).toFixed(1)} round trips` : "");
  // The engine's own worker may have resolved every context before runPipeline looked.
  const perPass = run.passes > 0 ? `${(pass.statements / run.passes).toFixed(1)} statements${trips(pass, run.passes)} per pass (${run.passes} passes)` : "no pass left for runPipeline (the engine's worker had resolved every context)";
  return { note: `${label}: ${(ingest.statements / bulks).toFixed(1)} statements${trips(ingest, bulks)} per bulk request of 100; ${perPass}` };
}

/**
 * Issue 18's end-to-end figure: two nodes with a 5 s lease, 200 keyed bulk requests of 100
 * over 20 contexts (four in flight per node), then the seconds from the load's last answer
 * until every context is resolved: how far resolution trails a load.
 */
async function resolvedAfterLoad(url, postmaster) {
  const store = await openDatabase(url);
  const { token } = await issueToken(store, { workspace: "default", scopes: ["admin"] });
  await store.close();
  const servers = [await serve(url, ["--lease", "5s"]), await serve(url, ["--lease", "5s"])];
  const clients = servers.map((s) => createHttpClient({ baseUrl: `${s.origin}/v1`, token }));
  try {
    const { modelIds, contextIds } = await setup(clients[0], 20);
    const items = [...contributions(20_000, contextIds, modelIds, 13)];
    let next = 0;
    const meter = cpuMeter({ nodes: () => servers.map((s) => s.pid), postgres: () => [postmaster, ...childrenOf(postmaster)] });
    meter.start();
    const t0 = performance.now();
    await Promise.all(
      clients.flatMap((c) =>
        Array.from({ length: 4 }, async () => {
          for (let i = next++; i < 200; i = next++) await c.bulkCreateContributions({ items: items.slice(i * 100, i * 100 + 100) }, { idempotencyKey: `after-load-${i}` });
        }),
      ),
    );
    const loaded = performance.now();
    await settled(clients[0]);
    const after = (performance.now() - loaded) / 1000;
    const m = meter.stop();
    return [
      { name: "PostgreSQL, 2 nodes: 200 keyed bulks of 100 over 20 contexts", rows: items.length, seconds: (loaded - t0) / 1000 },
      { name: "PostgreSQL, 2 nodes: seconds from the load's end to all resolved", ratio: after, target: "<= 5", targetValue: 5, lowerIsBetter: true },
      { note: `keyed load then resolution: CPU seconds nodes ${m.used.nodes.toFixed(1)}, PostgreSQL ${m.used.postgres.toFixed(1)} in ${m.wall.toFixed(1)} s` },
    ];
  } finally {
    for (const c of clients) await c.close();
    for (const s of servers) await s.stop();
  }
}

/** Runs the scale section; returns result rows, ratios and notes. */
export async function runScaleBench({ rows = 20000, contexts = 200 } = {}) {
  const out = [];
  const dir = mkdtempSync(join(tmpdir(), "bench-scale-"));
  const cluster = await startPostgres({ settings: ["shared_preload_libraries=pg_stat_statements"] });
  try {
    out.push(...(await runSetup("SQLite, 1 node", join(dir, "dds.db"), 1, { rows, contexts })));
    let postmaster;
    for (const nodes of [1, 2, 4]) {
      const url = await cluster.createDatabase();
      const inspector = postgres(url, { max: 1, onnotice: () => undefined });
      await inspector.unsafe("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      const [{ pid }] = await inspector.unsafe("SELECT pg_backend_pid() AS pid");
      postmaster = parentOf(Number(pid));
      out.push(...(await runSetup(`PostgreSQL, ${nodes} node${nodes > 1 ? "s" : ""}`, url, nodes, { rows, contexts, inspector, postmaster })));
      await inspector.end();
    }
    out.push(...(await resolvedAfterLoad(await cluster.createDatabase(), postmaster)));
    out.push(await costs("PostgreSQL", await cluster.createDatabase(), 20));
    out.push(await costs("SQLite", join(dir, "costs.db"), 20));
  } finally {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const rate = (name) => {
    const r = out.find((x) => x.name?.startsWith(name));
    return r.rows / r.seconds;
  };
  // Issue 18's targets; ingest across nodes is reported only (the nodes and the database share this machine's cores).
  out.push({ name: "PostgreSQL 2 nodes vs 1 node, bulk ingest rows/s", ratio: rate("PostgreSQL, 2 nodes: bulk") / rate("PostgreSQL, 1 node: bulk"), target: "-", targetValue: 0 });
  out.push({ name: "PostgreSQL 4 nodes vs 1 node, bulk ingest rows/s", ratio: rate("PostgreSQL, 4 nodes: bulk") / rate("PostgreSQL, 1 node: bulk"), target: "-", targetValue: 0 });
  out.push({ name: "PostgreSQL 2 nodes vs 1 node, passes/s", ratio: rate("PostgreSQL, 2 nodes: passes") / rate("PostgreSQL, 1 node: passes"), target: ">= 1.60", targetValue: 1.6 });
  out.push({ name: "PostgreSQL 4 nodes vs 1 node, passes/s", ratio: rate("PostgreSQL, 4 nodes: passes") / rate("PostgreSQL, 1 node: passes"), target: "-", targetValue: 0 });
  out.push({ name: "PostgreSQL 1 node vs SQLite 1 node, bulk ingest rows/s", ratio: rate("PostgreSQL, 1 node: bulk") / rate("SQLite, 1 node: bulk"), target: ">= 0.80", targetValue: 0.8 });
  out.push({ name: "PostgreSQL 1 node vs SQLite 1 node, passes/s", ratio: rate("PostgreSQL, 1 node: passes") / rate("SQLite, 1 node: passes"), target: ">= 0.80", targetValue: 0.8 });
  return out;
}
