// Issue 5 (8): `ddsctl import contributions` of an N-line NDJSON file, locally and against
// `ddsctl serve`, next to `sqlite-utils insert --nl` loading the same file as the peer.
// Standalone: node test/bench/import-bench.mjs [--rows 1000000] [--contexts 1000] [--keep]
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createLocalEngine } from "../../dist/engine/local-engine.js";
import { MODELS, contributions } from "./workload.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = join(ROOT, "bin/ddsctl");
const TIME = "/usr/bin/time";

/** Streams `rows` contribution lines to `path`, naming contexts and models (hand-readable). */
async function writeFile(path, rows, contexts) {
  const names = Array.from({ length: contexts }, (_, i) => `case-${i}`);
  const out = createWriteStream(path);
  for (const c of contributions(rows, names, { Loan: "Loan", Applicant: "Applicant", Employment: "Employment" })) {
    const { contextId, modelId, ...rest } = c;
    if (!out.write(`${JSON.stringify({ contextRef: contextId, modelName: modelId, ...rest })}\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

async function setupDb(db) {
  const engine = createLocalEngine({ db });
  for (const m of MODELS) await engine.setModelStatus((await engine.createModel(m)).modelId, "active");
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

function hasServe() {
  try {
    execFileSync("node", [BIN, "serve", "--help"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
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

/** Runs the import benchmark and returns rows (name, rows, seconds, rssMiB), ratios and notes. */
export async function runImportBench({ rows = 1_000_000, contexts = 1000, keep = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "bench-import-"));
  const file = join(dir, "contributions.ndjson");
  const out = [];
  try {
    await writeFile(file, rows, contexts);
    const mb = statSync(file).size / 1024 / 1024;
    // Local: the embedded engine, one batch at a time.
    await setupDb(join(dir, "local.db"));
    const local = await measure("node", [BIN, "--local", join(dir, "local.db"), ...importArgs(file)]);
    const summary = JSON.parse(local.stdout);
    if (summary.created !== rows) throw new Error(`local import created ${summary.created} of ${rows}: ${local.stdout}`);
    out.push({ name: `(i) ddsctl import, local, ${contexts} contexts, ${mb.toFixed(0)} MB`, rows, seconds: local.seconds, rssMiB: local.rssMiB });
    // Remote: against ddsctl serve (its pipeline worker runs beside it), 4 in flight.
    if (hasServe()) {
      const db = join(dir, "remote.db");
      await setupDb(db);
      const token = JSON.parse(execFileSync("node", [BIN, "--local", db, "tokens", "create", "--scope", "write", "--json", "--quiet"], { encoding: "utf8" })).token;
      const server = await serve(db);
      try {
        const remote = await measure("node", [BIN, "--remote", server.url, "--token", token, ...importArgs(file)]);
        out.push({ name: "(j) ddsctl import, remote (ddsctl serve), 4 in flight", rows, seconds: remote.seconds, rssMiB: remote.rssMiB });
      } finally {
        await server.stop();
      }
    } else {
      out.push({ note: "(j) skipped: this build has no `ddsctl serve`" });
    }
    // The peer: sqlite-utils loading the same NDJSON into a table (no validation, no binding).
    const peer = sqliteUtils();
    if (peer) {
      const su = await measure(peer, ["insert", join(dir, "peer.db"), "contributions", file, "--nl"]);
      out.push({ name: "(k) sqlite-utils insert --nl, same file (peer)", rows, seconds: su.seconds, rssMiB: su.rssMiB });
      out.push({ name: "i/k local import vs sqlite-utils", ratio: rows / local.seconds / (rows / su.seconds), target: ">= 1.00", targetValue: 1 });
    } else {
      out.push({ note: "(k) skipped: sqlite-utils is not installed and apt-get install -y sqlite-utils failed" });
    }
    out.push({ name: "i peak RSS of the local import, MiB", ratio: local.rssMiB, target: "< 200", targetValue: 200, lowerIsBetter: true });
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

// Standalone use prints the rows as JSON.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
  const results = await runImportBench({ rows: Number(opt("rows", "1000000")), contexts: Number(opt("contexts", "1000")), keep: args.includes("--keep") });
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}
