// `ddsctl import contributions` of the two import shapes (see import-shapes.mjs), locally
// and against `ddsctl serve`, next to `sqlite-utils insert --nl` loading the same file as
// the peer; after the record-heavy import, how long the pipeline takes to resolve it.
// Standalone: node test/bench/import-bench.mjs [--rows 1000000] [--heavy-rows 200000] [--keep]
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createLocalEngine } from "../../dist/engine/local-engine.js";
import { SHAPES, writeShape } from "./import-shapes.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = join(ROOT, "bin/ddsctl");
const TIME = "/usr/bin/time";

async function setupDb(db, models) {
  const engine = createLocalEngine({ db });
  for (const m of models) await engine.setModelStatus((await engine.createModel(m)).modelId, "active");
  await engine.close();
}

/**
 * Runs a command to completion and measures its wall time and peak RSS: through
 * /usr/bin/time -v when present, else by polling VmHWM in /proc/<pid>/status.
 */
async function measure(cmd, args, options = {}) {
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
function sqliteUtils() {
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

/** Imports one shape locally, remotely and with the peer; returns its rows and ratios. */
async function runShape(dir, shape, rows, targets, peer) {
  const contexts = shape.defaultContexts;
  const file = join(dir, `${shape.label}.ndjson`);
  const out = [];
  await writeShape(file, shape, rows, contexts);
  const mb = (statSync(file).size / 1024 / 1024).toFixed(0);
  const tag = `${shape.label}, ${contexts} contexts, ${mb} MB`;
  // Local: the embedded engine, batches committed in write groups.
  const localDb = join(dir, `${shape.label}-local.db`);
  await setupDb(localDb, shape.models);
  const local = await measure("node", [BIN, "--local", localDb, ...importArgs(file)]);
  const summary = JSON.parse(local.stdout);
  if (summary.created !== rows) throw new Error(`local import created ${summary.created} of ${rows}: ${local.stdout}`);
  out.push({ name: `ddsctl import, local (${tag})`, rows, seconds: local.seconds, rssMiB: local.rssMiB });
  // Remote: against ddsctl serve on the same kind of database, 4 requests in flight.
  const remoteDb = join(dir, `${shape.label}-remote.db`);
  await setupDb(remoteDb, shape.models);
  const token = JSON.parse(execFileSync("node", [BIN, "--local", remoteDb, "tokens", "create", "--scope", "write", "--json", "--quiet"], { encoding: "utf8" })).token;
  const server = await serve(remoteDb);
  let remote;
  try {
    remote = await measure("node", [BIN, "--remote", server.url, "--token", token, ...importArgs(file)]);
  } finally {
    await server.stop();
  }
  out.push({ name: `ddsctl import, remote via ddsctl serve (${shape.label})`, rows, seconds: remote.seconds, rssMiB: remote.rssMiB });
  if (peer) {
    const su = await measure(peer, ["insert", join(dir, `${shape.label}-peer.db`), "contributions", file, "--nl"]);
    out.push({ name: `sqlite-utils insert --nl, same file (${shape.label})`, rows, seconds: su.seconds, rssMiB: su.rssMiB });
    out.push({ name: `local import vs sqlite-utils (${shape.label})`, ratio: su.seconds / local.seconds, target: `>= ${targets.peer.toFixed(2)}`, targetValue: targets.peer });
  }
  out.push({ name: `remote vs local import (${shape.label})`, ratio: local.seconds / remote.seconds, target: ">= 0.70", targetValue: 0.7 });
  out.push({ name: `peak RSS of the local import, MiB (${shape.label})`, ratio: local.rssMiB, target: "< 200", targetValue: 200, lowerIsBetter: true });
  out.push({ name: `peak RSS of the remote import, MiB (${shape.label})`, ratio: remote.rssMiB, target: "< 200", targetValue: 200, lowerIsBetter: true });
  return { out, localDb, localSeconds: local.seconds };
}

/**
 * Runs the import benchmark on both shapes and returns rows (name, rows, seconds, rssMiB),
 * ratios and notes. The record-heavy local database is then resolved by `pipeline run`,
 * timed against the import that filled it.
 */
export async function runImportBench({ rows = 1_000_000, heavyRows = 200_000, keep = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "bench-import-"));
  const out = [];
  try {
    const peer = sqliteUtils();
    if (!peer) out.push({ note: "sqlite-utils is not installed and apt-get install -y sqlite-utils failed: no peer ratios" });
    const friendly = await runShape(dir, SHAPES.friendly, rows, { peer: 1.5 }, peer);
    out.push(...friendly.out);
    const heavy = await runShape(dir, SHAPES.recordHeavy, heavyRows, { peer: 1.0 }, peer);
    out.push(...heavy.out);
    const pass = await measure("node", [BIN, "--local", heavy.localDb, "pipeline", "run", "--quiet", "--json"]);
    out.push({ name: `pipeline run after the record-heavy import (${SHAPES.recordHeavy.defaultContexts} contexts)`, rows: heavyRows, seconds: pass.seconds, rssMiB: pass.rssMiB });
    out.push({ name: "resolution time / import time (record-heavy)", ratio: pass.seconds / heavy.localSeconds, target: "<= 1.00", targetValue: 1, lowerIsBetter: true });
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

// Standalone use prints the rows as JSON.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
  const results = await runImportBench({ rows: Number(opt("rows", "1000000")), heavyRows: Number(opt("heavy-rows", "200000")), keep: args.includes("--keep") });
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}
