// The serve process's own CPU per request on GET /v1/contexts/{id}, against bare node:http
// answering the same bytes: on a shared machine the request rates are noisy, while CPU
// seconds per request are not; bare ÷ serve CPU per request is what the throughput ratio
// tends to when the server is the bottleneck. Standalone:
//   node test/bench/http-cpu.mjs [--rounds 4] [--seconds 4] [--connections 16] [--rate requests/s] [--node-args "--cpu-prof --cpu-prof-dir=/tmp/prof"] [--bare-node-args …] [--serve-args …] [--compare-bin /copy/of/bin/ddsctl]
import autocannon from "autocannon";
import { execa } from "execa";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";

/** User and system CPU seconds of a process, from /proc (Linux). */
export function cpuOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: Number(f[11]) / 100, sys: Number(f[12]) / 100 };
}

const BIN = resolve(import.meta.dirname, "../../bin/ddsctl");

/** Bare node:http answering `BODY` with the same Content-Type and Content-Length serve sends. */
export const BARE_SERVER =
  "const body=process.env.BODY,len=Buffer.byteLength(body);const s=require('http').createServer((q,r)=>{r.writeHead(200,{'content-type':'application/json','content-length':len});r.end(body)}).listen(0,'127.0.0.1',()=>console.log('listening on http://127.0.0.1:'+s.address().port))";

/** Starts a server process; resolves with its URL (the first match of `pattern` in its output), its pid and a stop. */
export async function start(args, pattern = /listening on (http:\S+)/, env = {}) {
  const child = execa("node", args, { reject: false, env: { NO_COLOR: "1", ...env } });
  const url = await new Promise((ok, fail) => {
    let seen = "";
    const timer = setTimeout(() => fail(new Error(`server did not start: ${seen}`)), 30_000);
    const onData = (chunk) => {
      seen += chunk.toString();
      const m = pattern.exec(seen);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
  });
  return { url, pid: child.pid, stop: async () => (child.kill("SIGTERM"), await child) };
}

/** One load on `url`, with the CPU seconds process `pid` used during it. */
export async function cpuPerRequest(pid, opts) {
  const before = cpuOf(pid);
  const r = await autocannon(opts);
  const after = cpuOf(pid);
  const [user, sys] = [after.user - before.user, after.sys - before.sys];
  return { requests: r.requests.total, non2xx: r.non2xx, cpu: user + sys, user, sys, seconds: r.duration };
}

/** Sums a side's rounds: requests, CPU seconds and wall seconds. */
export function total(runs) {
  const sum = (k) => runs.reduce((a, r) => a + r[k], 0);
  return { requests: sum("requests"), cpu: sum("cpu"), user: sum("user"), sys: sum("sys"), seconds: sum("seconds") };
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : dflt;
  };
  const rounds = Number(opt("rounds", "4"));
  const seconds = Number(opt("seconds", "4"));
  const connections = Number(opt("connections", "16"));
  // A fixed offered load (requests/s over all connections) instead of as fast as the server answers.
  const rate = opt("rate", undefined);
  const nodeArgs = opt("node-args", "").split(" ").filter(Boolean);
  const bareArgs = opt("bare-node-args", "").split(" ").filter(Boolean);
  const serveArgs = opt("serve-args", "").split(" ").filter(Boolean);
  // Another build to compare with (a copy of bin/ and dist/ made before a change), served from the same database file.
  const otherBin = opt("compare-bin", "");
  const dir = mkdtempSync(join(tmpdir(), "bench-http-cpu-"));
  const db = join(dir, "dds.db");
  const { token } = JSON.parse(execFileSync("node", [BIN, "tokens", "create", "--workspace", "default", "--scope", "admin", "--json", "--quiet", "--local", db], { encoding: "utf8" }));
  const serveWith = (bin) => start([...nodeArgs, bin, "serve", "--port", "0", "--quiet", "--local", db, ...serveArgs], /listening on (http:\S+)/);
  const server = await serveWith(BIN);
  const base = server.url.replace(/\/v1\/?$/, "/v1");
  const headers = { authorization: `Bearer ${token}` };
  const created = await (await fetch(`${base}/contexts`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ name: "case-0" }) })).json();
  const path = `/v1/contexts/${created.contextId}`;
  const same = await (await fetch(`${base}/contexts/${created.contextId}`, { headers })).text();
  const bare = await start([...bareArgs, "-e", (bareArgs.length ? "process.on('SIGTERM',()=>process.exit(0));" : "") + BARE_SERVER], /listening on (http:\S+)/, { BODY: same });
  const sides = [
    { name: "bare ", pid: bare.pid, opts: { url: bare.url }, runs: [] },
    { name: "serve", pid: server.pid, opts: { url: `${server.url.replace(/\/v1\/?$/, "")}${path}`, headers }, runs: [] },
  ];
  const other = otherBin ? await serveWith(otherBin) : undefined;
  if (other) sides.push({ name: "other", pid: other.pid, opts: { url: `${other.url.replace(/\/v1\/?$/, "")}${path}`, headers }, runs: [] });
  for (let i = 0; i < rounds; i++) {
    // Each round in another order, so a side is not always measured after the same one.
    const order = sides.map((side, j) => sides[(i + j) % sides.length]);
    for (const side of order) {
      const r = await cpuPerRequest(side.pid, { ...side.opts, connections, duration: seconds, ...(rate ? { overallRate: Number(rate) } : {}) });
      if (r.non2xx) throw new Error(`${side.name} answered ${r.non2xx} non-2xx`);
      side.runs.push(r);
    }
  }
  await bare.stop();
  await server.stop();
  await other?.stop();
  rmSync(dir, { recursive: true, force: true });
  const us = (x, k = "cpu") => (x[k] / x.requests) * 1e6;
  const totals = sides.map((side) => ({ ...side, t: total(side.runs) }));
  for (const { name, t } of totals) {
    console.log(`${name} ${t.requests} requests, ${(t.requests / t.seconds).toFixed(0)}/s, ${us(t).toFixed(2)} µs CPU/request (user ${us(t, "user").toFixed(2)}, system ${us(t, "sys").toFixed(2)})`);
  }
  const [b, ...served] = totals;
  const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  for (const { name, t, runs } of served) {
    // Also the median of the rounds' own ratios: a noisy moment of the machine lands on one round.
    const perRound = median(runs.map((r, i) => us(b.runs[i]) / us(r)));
    console.log(`bare ÷ ${name.trim()} CPU per request ${(us(b.t) / us(t)).toFixed(3)} (median of rounds ${perRound.toFixed(3)}); requests/s ratio ${(t.requests / t.seconds / (b.t.requests / b.t.seconds)).toFixed(3)}`);
  }
  if (served.length === 2) {
    const perRound = median(served[0].runs.map((r, i) => us(served[1].runs[i]) / us(r)));
    console.log(`other ÷ serve CPU per request ${(us(served[1].t) / us(served[0].t)).toFixed(3)} (median of rounds ${perRound.toFixed(3)})`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
