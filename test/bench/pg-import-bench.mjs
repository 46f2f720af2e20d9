// Issues 13 (3) and 17 (4, 5): `ddsctl import contributions` in-process on PostgreSQL
// (`--database postgres://…`), next to `psql \copy` of the same NDJSON into a one-column
// JSONB table (the peer) and to `COPY` of the rows the import stored into the project's own
// tables (the ceiling, pg-ceiling.mjs), on both import shapes, with the size the import's
// tables take beside that of the release before the compact schema. Every loader reads the
// same file on the same server.
// Standalone: node test/bench/pg-import-bench.mjs [--rows 200000] [--runs 1] [--shapes friendly,recordHeavy]
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createLocalEngine } from "../../dist/engine/local-engine.js";
import { openDatabase } from "../../dist/engine/store/db.js";
import postgres from "postgres";
import { startPostgres } from "../helpers/pg-cluster.mjs";
import { copyImportRows, dumpImportRows, importSize } from "./pg-ceiling.mjs";
import { SHAPES, writeShape } from "./import-shapes.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// Run as a user runs it (its shebang line sets the heap flags of docs/imports.md, "Memory").
const BIN = join(ROOT, "bin/ddsctl");
const TIME = "/usr/bin/time";

/** Clock ticks per second of /proc's CPU times (Linux's USER_HZ). */
const TICKS = 100;

/** A process's CPU ticks from /proc: its own, and those of its children it has reaped; and its parent. */
function procTicks(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined; // gone meanwhile, or not Linux
  }
}

/**
 * CPU seconds the PostgreSQL server has used so far: the postmaster, the backends that
 * have exited (it reaps them) and every child alive. Taken before and after a loader, it
 * says how much of the loader's time the database worked, whatever else the machine runs.
 */
export function serverCpu(postmaster) {
  const main = procTicks(postmaster);
  if (!main) return Number.NaN;
  let ticks = main.own + main.reaped;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const p = procTicks(name);
    if (p?.ppid === postmaster) ticks += p.own;
  }
  return ticks / TICKS;
}

/** The postmaster's pid: the parent of a backend. */
export async function postmasterOf(url) {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    const [{ pid }] = await sql`SELECT pg_backend_pid() AS pid`;
    return procTicks(pid)?.ppid;
  } finally {
    await sql.end();
  }
}

/** Runs a command to completion: wall time, its CPU time, and peak RSS (through /usr/bin/time -v when present). */
async function timed(cmd, args) {
  const useTime = existsSync(TIME);
  const t0 = performance.now();
  const child = spawn(useTime ? TIME : cmd, useTime ? ["-v", cmd, ...args] : args, { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const [code] = await once(child, "close");
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${code}: ${stderr.slice(-2000)}`);
  const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
  const cpu = ["User", "System"].reduce((sum, k) => sum + Number(new RegExp(`${k} time \\(seconds\\): ([\\d.]+)`).exec(stderr)?.[1] ?? Number.NaN), 0);
  return { seconds, rssMiB: kb / 1024, cpu, stdout };
}

/** A fresh database with the shape's models active (the import creates the contexts). */
async function prepare(cluster, shape) {
  const url = await cluster.createDatabase();
  const engine = createLocalEngine({ db: await openDatabase(url), ownsStore: true });
  for (const m of shape.models) await engine.setModelStatus((await engine.createModel(m)).modelId, "active");
  await engine.close();
  return url;
}

/**
 * The peer: psql's \copy of every line into `raw(doc jsonb)`. CSV with a quote and a
 * delimiter that never occur in the file reads each line whole (text format would
 * interpret the backslashes of JSON escapes); the cast to jsonb parses every line.
 */
async function psqlCopy(cluster, file, server) {
  const url = await cluster.createDatabase();
  await timed("psql", [url, "-q", "-c", "CREATE TABLE raw (doc jsonb NOT NULL)"]);
  return withServerCpu(server, () => timed("psql", [url, "-q", "-c", `\\copy raw (doc) FROM '${file}' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')`]));
}

/** Runs `run`, adding to its result the CPU seconds the server spent meanwhile (`server`). */
async function withServerCpu(server, run) {
  const before = server();
  const result = await run();
  const after = server();
  if (process.env.BENCH_DEBUG) console.error("server cpu", before, after);
  return { ...result, server: after - before };
}

async function ddsctlImport(cluster, shape, file, server) {
  const url = await prepare(cluster, shape);
  // A fresh run: no checkpoint or rejects of an earlier one beside the file.
  for (const suffix of [".checkpoint.json", ".rejects.ndjson"]) rmSync(`${file}${suffix}`, { force: true });
  const run = await withServerCpu(server, () => timed(BIN, ["--database", url, "import", "contributions", file, "--create-contexts", "--no-wait", "--quiet", "--json"]));
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    return { ...run, url, summary: JSON.parse(run.stdout), size: await importSize(sql) };
  } finally {
    await sql.end();
  }
}

/** The ceiling: the rows the import at `fromUrl` stored, copied into a fresh database like the one it started from. */
async function ceiling(cluster, shape, fromUrl, dir, tag, server) {
  const files = await dumpImportRows(timed, fromUrl, dir, tag);
  const url = await prepare(cluster, shape);
  const run = await withServerCpu(server, () => copyImportRows(timed, url, files));
  for (const f of Object.values(files)) rmSync(f, { force: true });
  return run;
}

/**
 * The tables' size (pg_total_relation_size of every table, heap, indexes and TOAST) after
 * a 200,000-line import by the release before the compact schema (r4, at ae3085a; its
 * PostgreSQL tables kept ids, times and JSON as TEXT). Measured once, on PostgreSQL 15 as
 * started by pg-cluster.mjs: each shape's file written by import-shapes.mjs, the shape's
 * models created and activated by r4's own engine, then `node bin/ddsctl --database <url>
 * import contributions FILE --create-contexts --no-wait` of r4's build, then the query of
 * importSize. That release cannot be run from this tree, so its figure is a constant.
 */
const R4_TABLES_BYTES = { friendly: 159_580_160, recordHeavy: 322_428_928 };
/**
 * The same release's tables once its `pipeline run` had resolved that import (VACUUM FULL
 * after it, so the updates' dead rows count for nothing): the content an import stores now,
 * every record resolved in the import's own write groups. Measured on 2026-12-02 as above,
 * then `node bin/ddsctl --database <url> pipeline run` of r4's build and `VACUUM FULL`.
 */
const R4_RESOLVED_TABLES_BYTES = { friendly: 142_155_776, recordHeavy: 389_341_184 };
const R4_ROWS = 200_000;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs the PostgreSQL import section; returns rows (name, rows, seconds, rssMiB) and ratios. */
export async function runPgImportBench({ rows = 200_000, runs = 1, shapes = ["friendly", "recordHeavy"] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "bench-pgimport-"));
  const cluster = await startPostgres();
  const out = [];
  try {
    const postmaster = await postmasterOf(await cluster.createDatabase());
    const server = () => serverCpu(postmaster);
    for (const key of shapes) {
      const shape = SHAPES[key];
      const file = join(dir, `${key}.ndjson`);
      await writeShape(file, shape, rows, shape.defaultContexts);
      const mb = statSync(file).size / 1024 / 1024;
      const ours = [];
      const peers = [];
      const ceilings = [];
      // Alternating runs, so a busy moment of the machine falls on every loader alike.
      for (let i = 0; i < runs; i++) {
        const run = await ddsctlImport(cluster, shape, file, server);
        if (run.summary.created + run.summary.unchanged !== rows) throw new Error(`ddsctl created ${run.summary.created} of ${rows}: ${run.stdout}`);
        ours.push(run);
        peers.push(await psqlCopy(cluster, file, server));
        ceilings.push(await ceiling(cluster, shape, run.url, dir, `${key}-${i}`, server));
      }
      const pick = (list) => list.find((r) => r.seconds === median(list.map((x) => x.seconds)));
      const [o, p, c] = [pick(ours), pick(peers), pick(ceilings)];
      const what = `${shape.label}, ${shape.defaultContexts} contexts, ${mb.toFixed(0)} MB`;
      out.push({ name: `(p) ddsctl import, PostgreSQL in-process, ${what}`, rows, seconds: o.seconds, rssMiB: o.rssMiB });
      out.push({ name: `(q) psql \\copy into JSONB, ${what} (peer)`, rows, seconds: p.seconds, rssMiB: p.rssMiB });
      out.push({ name: `(c) COPY of the rows (p) stored into the project's tables, ${shape.label} (ceiling)`, rows, seconds: c.seconds, rssMiB: c.rssMiB });
      out.push({ name: `p/q PostgreSQL import vs psql \\copy, ${shape.label}`, ratio: p.seconds / o.seconds, target: ">= 0.25", targetValue: 0.25 });
      out.push({ name: `p/c PostgreSQL import vs COPY of its rows, ${shape.label}`, ratio: c.seconds / o.seconds, target: ">= 0.70", targetValue: 0.7 });
      const mib = (b) => (b / 2 ** 20).toFixed(1);
      const sizes = ours.map((r) => r.size.tables);
      const size = median(sizes);
      const scale = rows / R4_ROWS;
      const before = R4_TABLES_BYTES[key] * scale;
      const resolvedBefore = R4_RESOLVED_TABLES_BYTES[key] * scale;
      out.push({
        note: `${shape.label}: tables after the import ${mib(size)} MiB (database ${mib(o.size.database)} MiB); release r4 ${mib(resolvedBefore)} MiB once resolved, ${mib(before)} MiB after its import alone${rows === R4_ROWS ? "" : " (its 200,000-line figures scaled to the rows)"}`,
      });
      // The import resolves what it loads (its records carry their data, hash and lineage):
      // the peer is r4's tables holding the same, after its pipeline run.
      if (resolvedBefore > 0) out.push({ name: `size after import vs release r4 resolved (lower is better), ${shape.label}`, ratio: size / resolvedBefore, target: "<= 0.50", targetValue: 0.5, lowerIsBetter: true });
      if (before > 0) out.push({ name: `size after import vs r4's unresolved import (reference), ${shape.label}`, ratio: size / before, target: "-", targetValue: 0 });
      // Where each loader's time went: its own process's CPU, and the server's.
      const cpu = (r) => `${r.cpu.toFixed(1)} + ${r.server.toFixed(1)}`;
      out.push({ note: `${shape.label}: CPU seconds, loader + PostgreSQL: ddsctl ${cpu(o)}; psql \\copy ${cpu(p)}; ceiling ${cpu(c)}` });
      if (runs > 1) {
        const list = (xs) => xs.map((r) => r.seconds.toFixed(2)).join(", ");
        out.push({ note: `${shape.label}: ddsctl ${list(ours)} s; psql ${list(peers)} s; ceiling ${list(ceilings)} s (medians above)` });
      }
    }
  } finally {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

// Standalone use prints the rows as JSON.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
  const results = await runPgImportBench({ rows: Number(opt("rows", "200000")), runs: Number(opt("runs", "1")), shapes: opt("shapes", "friendly,recordHeavy").split(",") });
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}
