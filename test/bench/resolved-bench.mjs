// Time to resolved (issue 24): how long a user waits from `ddsctl import FILE` (its default
// wait included) until every context of the file is resolved, on both import shapes, next to
// `sqlite-utils insert --nl` of the same file (the peer: a load that resolves nothing) and to
// the ceiling of the project's own tables with every record written resolved (ceiling.mjs,
// `resolved`); then what `pipeline run` still costs after such an import, and each command's
// peak RSS. On PostgreSQL (a cluster started by pg-cluster.mjs) the same import, with the
// CPU the database spent meanwhile: its share of the time.
// Standalone: node test/bench/resolved-bench.mjs [--rows 200000] [--runs 1] [--no-postgres]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createLocalEngine } from "../../dist/engine/local-engine.js";
import { openDatabase } from "../../dist/engine/store/db.js";
import { startPostgres } from "../helpers/pg-cluster.mjs";
import { sqliteCeiling } from "./ceiling.mjs";
import { drop, forget, measure, setupDb, sqliteUtils } from "./import-bench.mjs";
import { postmasterOf, serverCpu } from "./pg-import-bench.mjs";
import { SHAPES, writeShape } from "./import-shapes.mjs";
import { RULES } from "./workload.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// Run as a user runs it (its shebang line sets the heap flags of docs/imports.md, "Memory").
const BIN = join(ROOT, "bin/ddsctl");

/** The shapes as the issue measured them: the friendly one with the ten bench rules. */
const CASES = [
  { shape: SHAPES.recordHeavy, rules: [], peerTarget: 0.6 },
  { shape: SHAPES.friendly, rules: RULES, peerTarget: 1.0 },
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const importArgs = (file) => ["import", "contributions", file, "--create-contexts", "--quiet", "--json"];

/** Checks that the import ended with every context resolved, as its wait promises. */
function resolvedSummary(run, rows, what) {
  const summary = JSON.parse(run.stdout);
  // A generated line may repeat what its source said last for the record: answered unchanged.
  if (summary.created + summary.unchanged !== rows) throw new Error(`${what} created ${summary.created} of ${rows}: ${run.stdout.slice(0, 500)}`);
  return summary;
}

/** One round of one shape on SQLite: the peer, ddsctl import with its wait, pipeline run after it, the ceiling. */
async function sqliteRound(dir, c, file, rows, peer) {
  const r = {};
  const db = join(dir, `${c.shape.label}-resolved.db`);
  drop(db);
  await setupDb(db, c.shape.models, c.rules);
  forget(file);
  const run = await measure(BIN, ["--database", db, ...importArgs(file)]);
  resolvedSummary(run, rows, "ddsctl import");
  r.ours = run.seconds;
  r.oursRss = run.rssMiB;
  const after = await measure(BIN, ["--database", db, "pipeline", "run", "--quiet", "--json"]);
  r.after = after.seconds;
  r.afterRss = after.rssMiB;
  drop(db);
  const ceilingDb = join(dir, `${c.shape.label}-resolved-ceiling.db`);
  drop(ceilingDb);
  r.ceiling = await sqliteCeiling(ceilingDb, file, c.shape, { resolved: true });
  drop(ceilingDb);
  if (peer) {
    const peerDb = join(dir, `${c.shape.label}-resolved-peer.db`);
    drop(peerDb);
    r.peer = (await measure(peer, ["insert", peerDb, "contributions", file, "--nl"])).seconds;
    drop(peerDb);
  }
  return r;
}

/** One import of one shape into a fresh PostgreSQL database, with its wait: seconds and the server's CPU. */
async function postgresRound(cluster, postmaster, c, file, rows) {
  const url = await cluster.createDatabase();
  const engine = createLocalEngine({ db: await openDatabase(url), ownsStore: true });
  for (const m of c.shape.models) await engine.setModelStatus((await engine.createModel(m)).modelId, "active");
  for (const rule of c.rules) await engine.createRule(rule);
  await engine.close();
  forget(file);
  const before = serverCpu(postmaster);
  const run = await measure(BIN, ["--database", url, ...importArgs(file)]);
  const server = serverCpu(postmaster) - before;
  resolvedSummary(run, rows, "ddsctl import on PostgreSQL");
  return { seconds: run.seconds, server, rss: run.rssMiB };
}

/** Runs the time-to-resolved section; returns rows, ratios and notes. */
export async function runResolvedBench({ rows = 200_000, runs = 1, postgres: withPostgres = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "bench-resolved-"));
  const out = [];
  const peer = sqliteUtils();
  if (!peer) out.push({ note: "sqlite-utils is not installed and apt-get install -y sqlite-utils failed: no peer ratios" });
  let cluster;
  try {
    const files = [];
    for (const c of CASES) {
      const file = join(dir, `${c.shape.label}.ndjson`);
      await writeShape(file, c.shape, rows, c.shape.defaultContexts);
      files.push(file);
    }
    const sqlite = new Map();
    for (const [i, c] of CASES.entries()) {
      const rounds = [];
      for (let k = 0; k < runs; k++) rounds.push(await sqliteRound(dir, c, files[i], rows, peer));
      const m = (key) => median(rounds.map((r) => r[key]));
      const ratio = (a, b) => median(rounds.map((r) => r[a] / r[b]));
      const n = runs > 1 ? ` (median of ${runs})` : "";
      const label = c.shape.label;
      const tag = `${label}, ${c.shape.defaultContexts} contexts${c.rules.length ? `, ${c.rules.length} rules` : ""}, ${(statSync(files[i]).size / 2 ** 20).toFixed(0)} MB`;
      sqlite.set(label, m("ours"));
      out.push({ name: `ddsctl import FILE until resolved, SQLite (${tag})${n}`, rows, seconds: m("ours"), rssMiB: m("oursRss") });
      out.push({ name: `then pipeline run (${label})${n}`, rows, seconds: m("after"), rssMiB: m("afterRss") });
      out.push({ name: `ceiling: raw inserts, every record written resolved (${label})${n}`, rows, seconds: m("ceiling") });
      if (peer) {
        out.push({ name: `sqlite-utils insert --nl, same file (${label})${n}`, rows, seconds: m("peer") });
        out.push({ name: `time to resolved vs sqlite-utils (${label})`, ratio: ratio("peer", "ours"), target: `>= ${c.peerTarget.toFixed(2)}`, targetValue: c.peerTarget });
        out.push({ name: `resolved ceiling vs sqlite-utils (${label}): what the target leaves room for`, ratio: ratio("peer", "ceiling"), target: "-" });
      }
      out.push({ name: `time to resolved vs its ceiling (${label})`, ratio: ratio("ceiling", "ours"), target: "-" });
      out.push({ name: `pipeline run after the import / the import (${label})`, ratio: ratio("after", "ours"), target: "<= 0.50", targetValue: 0.5, lowerIsBetter: true });
      out.push({ name: `peak RSS of the import until resolved, MiB (${label})`, ratio: m("oursRss"), target: "<= 160", targetValue: 160, lowerIsBetter: true });
      out.push({ name: `peak RSS of pipeline run after it, MiB (${label})`, ratio: m("afterRss"), target: "<= 160", targetValue: 160, lowerIsBetter: true });
    }
    if (withPostgres) {
      cluster = await startPostgres();
      const postmaster = await postmasterOf(await cluster.createDatabase());
      for (const [i, c] of CASES.entries()) {
        const rounds = [];
        for (let k = 0; k < runs; k++) rounds.push(await postgresRound(cluster, postmaster, c, files[i], rows));
        const pick = rounds.find((r) => r.seconds === median(rounds.map((x) => x.seconds)));
        const label = c.shape.label;
        out.push({ name: `ddsctl import FILE until resolved, PostgreSQL 15 (${label})`, rows, seconds: pick.seconds, rssMiB: pick.rss });
        out.push({ name: `PostgreSQL time to resolved / SQLite's (${label})`, ratio: pick.seconds / sqlite.get(label), target: "<= 1.25", targetValue: 1.25, lowerIsBetter: true });
        out.push({ note: `${label} on PostgreSQL: the database's CPU ${pick.server.toFixed(1)} s of the import's ${pick.seconds.toFixed(1)} s (${((100 * pick.server) / pick.seconds).toFixed(0)} %)` });
      }
    }
  } finally {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

// Standalone use prints the rows as JSON.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
  const results = await runResolvedBench({ rows: Number(opt("rows", "200000")), runs: Number(opt("runs", "1")), postgres: !args.includes("--no-postgres") });
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}
