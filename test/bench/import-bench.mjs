// `ddsctl import contributions` of the two import shapes (see import-shapes.mjs), locally
// and against `ddsctl serve`, next to `sqlite-utils insert --nl` loading the same file (the
// peer) and to the ceiling of the project's own tables (raw prepared inserts of exactly the
// rows the import stores: ceiling.mjs); the database's size beside the release before the
// compact storage; after the record-heavy import, how long the pipeline takes to resolve
// it; and the upgrade of a database of the earlier schema holding as many rows.
// Every loader reads the same file; with --runs N they take turns N times (medians).
// Standalone: node test/bench/import-bench.mjs [--rows 1000000] [--heavy-rows 200000] [--runs 1] [--keep]
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createLocalEngine } from "../../dist/engine/local-engine.js";
import { sqliteCeiling } from "./ceiling.mjs";
import { SHAPES, writeShape } from "./import-shapes.mjs";
import { legacyDatabase } from "./legacy-db.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// Run as a user runs it (its shebang line sets the heap flags of docs/imports.md, "Memory").
const BIN = join(ROOT, "bin/ddsctl");
const TIME = "/usr/bin/time";

/**
 * The size of the database file after these imports with the release before the compact
 * storage (main at ae3085a, SQLite schema 4): the same generator's files, 1,000,000
 * friendly lines and 200,000 record-heavy ones, imported with `--create-contexts
 * --no-wait`, file size once the import closed it (its WAL checkpointed), on 2026-11-26.
 * A bench of smaller files scales these by their line counts.
 */
const EARLIER_BYTES = { friendly: { lines: 1_000_000, bytes: 737_456_128 }, "record-heavy": { lines: 200_000, bytes: 292_966_400 } };

/** A new database at `db` with `models` active and `rules` created. */
export async function setupDb(db, models, rules = []) {
  const engine = createLocalEngine({ db });
  for (const m of models) await engine.setModelStatus((await engine.createModel(m)).modelId, "active");
  for (const r of rules) await engine.createRule(r);
  await engine.close();
}

/**
 * Runs a command to completion and measures its wall time and peak RSS: through
 * /usr/bin/time -v when present, else by polling VmHWM in /proc/<pid>/status.
 */
export async function measure(cmd, args, options = {}) {
  const useTime = existsSync(TIME);
  const t0 = performance.now();
  const child = spawn(useTime ? TIME : cmd, useTime ? ["-v", cmd, ...args] : args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  let hwm = 0;
  const poll = useTime
    ? undefined
    : setInterval(() => {
        try {
          const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
          if (m) hwm = Math.max(hwm, Number(m[1]));
        } catch {
          // The process has just exited.
        }
      }, 20);
  const [code] = await once(child, "close");
  clearInterval(poll);
  const seconds = (performance.now() - t0) / 1000;
  const kb = useTime ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? 0) : hwm;
  if (code !== 0 && code !== 3) throw new Error(`${cmd} ${args.join(" ")} exited ${code}: ${stderr.slice(-2000)}`);
  return { seconds, rssMiB: kb / 1024, stdout, stderr };
}

/** Starts `ddsctl serve --port 0` on `db`; resolves with its URL and a stop function. */
async function serve(db) {
  const child = spawn("node", [BIN, "--local", db, "serve", "--port", "0", "--quiet"], { stdio: ["ignore", "ignore", "pipe"] });
  let text = "";
  const url = await new Promise((ok, fail) => {
    child.stderr.on("data", (d) => {
      text += d;
      const m = /listening on (\S+)/.exec(text);
      if (m) ok(m[1]);
    });
    child.on("exit", (code) => fail(new Error(`serve exited ${code}: ${text}`)));
  });
  return { url, stop: async () => (child.kill("SIGTERM"), await once(child, "exit")) };
}

/** sqlite-utils, installed with apt-get when missing (a Debian package); undefined if impossible. */
export function sqliteUtils() {
  const find = () => {
    try {
      return execFileSync("sh", ["-c", "command -v sqlite-utils"], { encoding: "utf8" }).trim() || undefined;
    } catch {
      return undefined;
    }
  };
  let path = find();
  if (!path) {
    try {
      execFileSync("apt-get", ["install", "-y", "sqlite-utils"], { stdio: "ignore" });
      path = find();
    } catch {
      path = undefined;
    }
  }
  return path;
}

const importArgs = (file) => ["import", "contributions", file, "--create-contexts", "--no-wait", "--quiet", "--json"];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sizeOf = (db) => ["", "-wal"].reduce((n, s) => n + (existsSync(db + s) ? statSync(db + s).size : 0), 0);
export const forget = (file) => {
  for (const suffix of [".checkpoint.json", ".checkpoint.lines", ".rejects.ndjson"]) rmSync(`${file}${suffix}`, { force: true });
};
export const drop = (db) => {
  for (const suffix of ["", "-wal", "-shm", ".key"]) rmSync(`${db}${suffix}`, { force: true });
  rmSync(`${db}.owners`, { recursive: true, force: true });
};

/** One round of every loader on one file, in turn; returns their seconds and what else they measured. */
async function round(dir, shape, file, rows, peer, keepDb) {
  const r = {};
  const localDb = join(dir, `${shape.label}-local.db`);
  drop(localDb);
  await setupDb(localDb, shape.models);
  forget(file);
  const local = await measure(BIN, ["--local", localDb, ...importArgs(file)]);
  const summary = JSON.parse(local.stdout);
  // A generated line may repeat what its source said last for the record: answered unchanged.
  if (summary.created + summary.unchanged !== rows) throw new Error(`local import created ${summary.created} of ${rows}: ${local.stdout}`);
  r.local = local.seconds;
  r.localRss = local.rssMiB;
  r.bytes = sizeOf(localDb);
  if (!keepDb) drop(localDb);
  const ceilingDb = join(dir, `${shape.label}-ceiling.db`);
  drop(ceilingDb);
  r.ceiling = await sqliteCeiling(ceilingDb, file, shape);
  drop(ceilingDb);
  const remoteDb = join(dir, `${shape.label}-remote.db`);
  drop(remoteDb);
  await setupDb(remoteDb, shape.models);
  const token = JSON.parse(execFileSync("node", [BIN, "--local", remoteDb, "tokens", "create", "--scope", "write", "--json", "--quiet"], { encoding: "utf8" })).token;
  const server = await serve(remoteDb);
  forget(file);
  try {
    const remote = await measure(BIN, ["--remote", server.url, "--token", token, ...importArgs(file)]);
    r.remote = remote.seconds;
    r.remoteRss = remote.rssMiB;
  } finally {
    await server.stop();
  }
  drop(remoteDb);
  if (peer) {
    const peerDb = join(dir, `${shape.label}-peer.db`);
    drop(peerDb);
    r.peer = (await measure(peer, ["insert", peerDb, "contributions", file, "--nl"])).seconds;
    drop(peerDb);
  }
  return { ...r, localDb };
}

/** Imports one shape with every loader, `runs` times in turn; returns its rows and ratios. */
async function runShape(dir, shape, rows, targets, peer, runs) {
  const contexts = shape.defaultContexts;
  const file = join(dir, `${shape.label}.ndjson`);
  const out = [];
  await writeShape(file, shape, rows, contexts);
  const mb = (statSync(file).size / 1024 / 1024).toFixed(0);
  const tag = `${shape.label}, ${contexts} contexts, ${mb} MB`;
  const rounds = [];
  // The last round keeps its local database: the record-heavy one is resolved afterwards.
  for (let i = 0; i < runs; i++) rounds.push(await round(dir, shape, file, rows, peer, i === runs - 1));
  const m = (k) => median(rounds.map((r) => r[k]));
  const n = runs > 1 ? ` (median of ${runs})` : "";
  out.push({ name: `ddsctl import, local (${tag})${n}`, rows, seconds: m("local"), rssMiB: m("localRss") });
  out.push({ name: `ceiling: raw prepared inserts of the rows it stores (${shape.label})${n}`, rows, seconds: m("ceiling") });
  out.push({ name: `ddsctl import, remote via ddsctl serve (${shape.label})${n}`, rows, seconds: m("remote"), rssMiB: m("remoteRss") });
  const ratio = (a, b) => median(rounds.map((r) => r[a] / r[b]));
  if (peer) {
    out.push({ name: `sqlite-utils insert --nl, same file (${shape.label})${n}`, rows, seconds: m("peer") });
    out.push({ name: `local import vs sqlite-utils (${shape.label})`, ratio: ratio("peer", "local"), target: `>= ${targets.peer.toFixed(2)}`, targetValue: targets.peer });
    out.push({ name: `ceiling vs sqlite-utils (${shape.label}): what the target leaves room for`, ratio: ratio("peer", "ceiling"), target: "-" });
  }
  out.push({ name: `local import vs its ceiling (${shape.label})`, ratio: ratio("ceiling", "local"), target: "-" });
  out.push({ name: `remote vs local import (${shape.label})`, ratio: ratio("local", "remote"), target: ">= 0.70", targetValue: 0.7 });
  const earlier = EARLIER_BYTES[shape.label];
  const earlierBytes = (earlier.bytes * rows) / earlier.lines;
  out.push({
    note: `database size after the ${shape.label} import: ${(m("bytes") / 1024 / 1024).toFixed(1)} MiB, the earlier storage's ${(earlierBytes / 1024 / 1024).toFixed(1)} MiB${rows === earlier.lines ? "" : " (scaled to the line count)"}`,
  });
  out.push({ name: `database size vs the earlier storage's, SQLite (${shape.label})`, ratio: m("bytes") / earlierBytes, target: "<= 0.50", targetValue: 0.5, lowerIsBetter: true });
  out.push({ name: `peak RSS of the local import, MiB (${shape.label})`, ratio: m("localRss"), target: "< 200", targetValue: 200, lowerIsBetter: true });
  out.push({ name: `peak RSS of the remote import, MiB (${shape.label})`, ratio: m("remoteRss"), target: "< 200", targetValue: 200, lowerIsBetter: true });
  return { out, localDb: rounds[rounds.length - 1].localDb, localSeconds: m("local") };
}

/**
 * The upgrade of a database of the earlier schema (SQLite schema 4) holding `rows` records
 * and contributions of the record-heavy shape, by `ddsctl migrate`, against the import that
 * filled the same rows.
 */
async function upgradeLine(dir, rows, importSeconds) {
  const db = join(dir, "legacy.db");
  await legacyDatabase(db, rows);
  const run = await measure(BIN, ["--local", db, "migrate", "--json"]);
  const state = JSON.parse(run.stdout);
  if (state.pending !== 0) throw new Error(`migrate left ${state.pending} migration(s): ${run.stdout}`);
  drop(db);
  return [
    { name: `ddsctl migrate of a schema-4 database with ${rows} contributions`, rows, seconds: run.seconds, rssMiB: run.rssMiB },
    { name: "upgrade time / import time of as many rows (record-heavy)", ratio: run.seconds / importSeconds, target: "<= 1.00", targetValue: 1, lowerIsBetter: true },
  ];
}

/**
 * Runs the import benchmark on both shapes and returns rows (name, rows, seconds, rssMiB),
 * ratios and notes. The record-heavy local database is then resolved by `pipeline run`,
 * timed against the import that filled it.
 */
export async function runImportBench({ rows = 1_000_000, heavyRows = 200_000, runs = 1, keep = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "bench-import-"));
  const out = [];
  try {
    const peer = sqliteUtils();
    if (!peer) out.push({ note: "sqlite-utils is not installed and apt-get install -y sqlite-utils failed: no peer ratios" });
    const friendly = await runShape(dir, SHAPES.friendly, rows, { peer: 1.5 }, peer, runs);
    out.push(...friendly.out);
    const heavy = await runShape(dir, SHAPES.recordHeavy, heavyRows, { peer: 1.0 }, peer, runs);
    out.push(...heavy.out);
    const pass = await measure(BIN, ["--local", heavy.localDb, "pipeline", "run", "--quiet", "--json"]);
    out.push({ name: `pipeline run after the record-heavy import (${SHAPES.recordHeavy.defaultContexts} contexts)`, rows: heavyRows, seconds: pass.seconds, rssMiB: pass.rssMiB });
    out.push({ name: "resolution time / import time (record-heavy)", ratio: pass.seconds / heavy.localSeconds, target: "<= 1.00", targetValue: 1, lowerIsBetter: true });
    out.push(...(await upgradeLine(dir, heavyRows, heavy.localSeconds)));
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

// Standalone use prints the rows as JSON.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
  const results = await runImportBench({
    rows: Number(opt("rows", "1000000")),
    heavyRows: Number(opt("heavy-rows", "200000")),
    runs: Number(opt("runs", "1")),
    keep: args.includes("--keep"),
  });
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}
