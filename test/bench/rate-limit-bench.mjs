// Rate limits' cost: GET /v1/contexts/{id} (the read lane) and POST /v1/contributions/bulk
// through `ddsctl serve` with the default limits on (and not reached) against the same
// server with `--workspace-rate off --token-rate off`, both up at once on databases set up
// alike, rounds interleaved so a noisy moment of the machine lands on both sides.
import autocannon from "autocannon";
import { execa } from "execa";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createHttpClient } from "../../dist/client/index.js";
import { MODELS, contributions } from "./workload.mjs";

const BIN = resolve(import.meta.dirname, "../../bin/ddsctl");
const ROUND_SECONDS = 3;
const ROUNDS = 5;

async function serve(dir, name, flags) {
  const db = join(dir, `${name}.db`);
  const { token } = JSON.parse(execFileSync("node", [BIN, "tokens", "create", "--workspace", "default", "--scope", "admin", "--json", "--quiet", "--local", db], { encoding: "utf8" }));
  const child = execa("node", [BIN, "serve", "--port", "0", "--quiet", "--local", db, ...flags], { reject: false, env: { NO_COLOR: "1" } });
  const url = await new Promise((ok, fail) => {
    let seen = "";
    const timer = setTimeout(() => fail(new Error(`server did not start: ${seen}`)), 30_000);
    child.stderr.on("data", (chunk) => {
      seen += chunk.toString();
      const m = /listening on (http:\S+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
  });
  const base = url.replace(/\/v1\/?$/, "/v1");
  const client = createHttpClient({ baseUrl: base, token });
  const ids = {};
  for (const m of MODELS) {
    const created = await client.createModel(m);
    await client.setModelStatus(created.modelId, "active");
    ids[m.name] = created.modelId;
  }
  const contextIds = [];
  for (let i = 0; i < 3; i++) contextIds.push((await client.createContext({ name: `case-${i}` })).contextId);
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  // A bulk round leaves its context to resolve: the next round waits for both servers' workers.
  const settle = async () => {
    for (const until = Date.now() + 300_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      const { contexts: c } = await client.pipelineStatus();
      if (c.stale === 0 && c.computing === 0) return;
    }
  };
  return { base, headers, ids, contextIds, settle, stop: async () => (await client.close(), child.kill("SIGTERM"), await child) };
}

const rateOf = (r) => r.requests.total / r.duration;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function measure(server, kind) {
  const opts =
    kind === "get"
      ? { url: `${server.base}/contexts/${server.contextIds[0]}`, headers: server.headers, connections: 16 }
      : { url: `${server.base}/contributions/bulk`, method: "POST", headers: server.headers, body: JSON.stringify({ items: [...contributions(100, [server.contextIds[1]], server.ids)] }), connections: 4 };
  const r = await autocannon({ duration: ROUND_SECONDS, ...opts });
  if (r.non2xx) throw new Error(`${kind} answered ${r.non2xx} non-2xx (a limit reached?)`);
  return rateOf(r);
}

/** Runs the rate-limit benchmark; returns result rows and ratios. */
export async function runRateLimitBench() {
  const dir = mkdtempSync(join(tmpdir(), "bench-rate-"));
  const off = await serve(dir, "off", ["--workspace-rate", "off", "--token-rate", "off"]);
  const on = await serve(dir, "on", []);
  const out = [];
  try {
    // The two sides differ as they should: one charges its requests, the other does not.
    const limited = async (s) => (await fetch(`${s.base}/contexts/${s.contextIds[0]}`, { headers: s.headers })).headers.get("ratelimit");
    if (!(await limited(on)) || (await limited(off))) throw new Error("the rate-limited server sends no RateLimit header, or the other one does");
    for (const kind of (process.env.DDS_BENCH_RATE_KINDS ?? "get,bulk").split(",")) {
      const sides = { off: [], on: [] };
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which side goes first, so neither always meets the warmer machine.
        const order = round % 2 === 0 ? ["off", "on"] : ["on", "off"];
        for (const side of order) {
          await Promise.all([on.settle(), off.settle()]);
          sides[side].push(await measure(side === "on" ? on : off, kind));
        }
      }
      const [a, b] = [median(sides.off), median(sides.on)];
      const what = kind === "get" ? "GET /v1/contexts/{id}" : "POST /v1/contributions/bulk (100 items)";
      const unit = kind === "get" ? 1 : 100;
      out.push({ name: `${what}, rate limits off (median of ${ROUNDS})`, rows: Math.round(a * ROUND_SECONDS * unit), seconds: ROUND_SECONDS });
      out.push({ name: `${what}, rate limits on, not reached (median of ${ROUNDS})`, rows: Math.round(b * ROUND_SECONDS * unit), seconds: ROUND_SECONDS });
      out.push({ name: `${what}: limits on (not reached) vs off`, ratio: b / a, target: ">= 0.95", targetValue: 0.95 });
    }
  } finally {
    await Promise.all([off.stop(), on.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
