// Issue 4: the HTTP layer's cost. Bare node:http answering the same JSON vs GET /v1/contexts/{id} vs
// POST /v1/contributions/bulk (100 items), each server in its own process, load from
// autocannon on loopback; then remote bulk ingest through the HTTP client vs local ingest.
import autocannon from "autocannon";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createHttpClient } from "../../dist/client/index.js";
import { createLocalEngine } from "../../dist/engine/local-engine.js";
import { BARE_SERVER, cpuOf, start } from "./http-cpu.mjs";
import { MODELS, contributions } from "./workload.mjs";

const BIN = resolve(import.meta.dirname, "../../bin/ddsctl");
const DURATION = 8;
/** Bare and GET alternate in this many rounds of DURATION / 2 each; each reports its median round. */
const ROUNDS = 3;

const load = (opts) => autocannon({ connections: 16, duration: DURATION, ...opts });

/** The round with the median request rate. */
const median = (runs) => [...runs].sort((a, b) => a.requests.total / a.duration - b.requests.total / b.duration)[runs.length >> 1];

async function setupModels(service) {
  const ids = {};
  for (const m of MODELS) {
    const created = await service.createModel(m);
    await service.setModelStatus(created.modelId, "active");
    ids[m.name] = created.modelId;
  }
  return ids;
}

/** Runs the HTTP benchmarks; returns result rows and ratios. */
export async function runHttpBench({ rows = 20000, contexts = 200 } = {}) {
  const out = [];
  const dir = mkdtempSync(join(tmpdir(), "bench-http-"));
  const db = join(dir, "dds.db");
  const { token } = JSON.parse(execFileSync("node", [BIN, "tokens", "create", "--workspace", "default", "--scope", "admin", "--json", "--quiet", "--local", db], { encoding: "utf8" }));
  const server = await start([BIN, "serve", "--port", "0", "--quiet", "--local", db], /listening on (http:\S+)/);
  const base = server.url.replace(/\/v1\/?$/, "/v1");
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const client = createHttpClient({ baseUrl: base, token });
  const modelIds = await setupModels(client);
  const contextIds = [];
  for (let i = 0; i < contexts; i++) contextIds.push((await client.createContext({ name: `case-${i}` })).contextId);
  // The peer: bare node:http answering the same JSON (the bytes serve sends for this
  // context, with the same Content-Type and Content-Length) from memory.
  const same = await (await fetch(`${base}/contexts/${contextIds[0]}`, { headers })).text();
  const bare = await start(["-e", BARE_SERVER], /listening on (http:\S+)/, { BODY: same });

  // Bare and GET alternate, both servers up, so a noisy moment of the machine does not
  // land on one side only; each side reports its median round.
  const hellos = [];
  const gets = [];
  // The CPU seconds each server process used over its rounds: what the request rates tend to
  // when the server is the bottleneck, and far less noisy on a shared machine.
  const cpu = { bare: 0, bareRequests: 0, serve: 0, serveRequests: 0 };
  const used = (pid) => {
    const { user, sys } = cpuOf(pid);
    return user + sys;
  };
  for (let round = 0; round < ROUNDS; round++) {
    let before = used(bare.pid);
    const hello = await load({ url: bare.url, duration: DURATION / 2 });
    cpu.bare += used(bare.pid) - before;
    cpu.bareRequests += hello.requests.total;
    hellos.push(hello);
    before = used(server.pid);
    const get = await load({ url: `${base}/contexts/${contextIds[0]}`, headers, duration: DURATION / 2 });
    cpu.serve += used(server.pid) - before;
    cpu.serveRequests += get.requests.total;
    if (get.non2xx) throw new Error(`GET answered ${get.non2xx} non-2xx`);
    gets.push(get);
  }
  await bare.stop();
  const [hello, get] = [median(hellos), median(gets)];
  out.push({ name: `bare node:http, the same JSON (median of ${ROUNDS})`, rows: hello.requests.total, seconds: hello.duration });
  out.push({ name: `GET /v1/contexts/{id} (ddsctl serve, median of ${ROUNDS})`, rows: get.requests.total, seconds: get.duration });

  const batch = [...contributions(100, [contextIds[1]], modelIds)];
  const bulk = await load({ url: `${base}/contributions/bulk`, method: "POST", headers, body: JSON.stringify({ items: batch }), connections: 4 });
  if (bulk.non2xx) throw new Error(`bulk answered ${bulk.non2xx} non-2xx`);
  out.push({ name: "POST /v1/contributions/bulk, 100 items (rows = items)", rows: bulk.requests.total * 100, seconds: bulk.duration });

  // The bulk load above left its context to resolve: let the server's worker finish it, so
  // the remote ingest below is measured on its own rather than beside that backlog.
  for (const until = Date.now() + 120_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    const { contexts: c } = await client.pipelineStatus();
    if (c.stale === 0 && c.computing === 0) break;
  }

  // Remote ingest through the HTTP client, 4 requests in flight, vs local ingest in-process.
  const items = [...contributions(rows, contextIds.slice(2), modelIds)];
  const batches = [];
  for (let i = 0; i < items.length; i += 100) batches.push({ items: items.slice(i, i + 100) });
  let t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < batches.length) await client.bulkCreateContributions(batches[next++]);
    }),
  );
  const remoteSeconds = (performance.now() - t0) / 1000;
  out.push({ name: "remote ingest: HTTP client, 4 bulk requests in flight", rows: items.length, seconds: remoteSeconds });
  await client.close();
  await server.stop();

  const local = createLocalEngine({ db: join(dir, "local.db") });
  const localModels = await setupModels(local);
  const localContexts = [];
  for (let i = 0; i < contexts; i++) localContexts.push((await local.createContext({ name: `case-${i}` })).contextId);
  // The same calls in-process: keyed as the HTTP client's are (it gives every write an
  // Idempotency-Key, and so does a local import), so the ratio is the HTTP layer's cost;
  // then unkeyed into another context range, for reference.
  const localItems = [...contributions(rows, localContexts.slice(2), localModels)];
  let key = 0;
  t0 = performance.now();
  for (let i = 0; i < localItems.length; i += 100) await local.bulkCreateContributions({ items: localItems.slice(i, i + 100) }, { idempotencyKey: `bench-${key++}` });
  const localSeconds = (performance.now() - t0) / 1000;
  out.push({ name: "local ingest: in-process engine, same rows, keyed", rows: localItems.length, seconds: localSeconds });
  const plainContexts = [];
  for (let i = 0; i < contexts; i++) plainContexts.push((await local.createContext({ name: `plain-${i}` })).contextId);
  const plainItems = [...contributions(rows, plainContexts.slice(2), localModels)];
  t0 = performance.now();
  for (let i = 0; i < plainItems.length; i += 100) await local.bulkCreateContributions({ items: plainItems.slice(i, i + 100) });
  out.push({ name: "local ingest: the same without keys (reference)", rows: plainItems.length, seconds: (performance.now() - t0) / 1000 });
  await local.close();
  rmSync(dir, { recursive: true, force: true });

  const rate = (name) => { const r = out.find((x) => x.name.startsWith(name)); return r.rows / r.seconds; };
  out.push({ name: "GET /v1/contexts/{id} vs bare node:http requests/s", ratio: rate("GET") / rate("bare"), target: ">= 0.80", targetValue: 0.8 });
  out.push({ name: "remote bulk ingest vs local ingest rows/s (both keyed)", ratio: rate("remote ingest") / rate("local ingest: in-process"), target: ">= 0.60", targetValue: 0.6 });
  out.push({ name: "remote bulk ingest vs local unkeyed ingest (reference)", ratio: rate("remote ingest") / rate("local ingest: the same"), target: "-", targetValue: 0 });
  const perRequest = (seconds, requests) => (seconds / requests) * 1e6;
  out.push({ name: "GET /v1/contexts/{id}: bare ÷ serve CPU per request", ratio: perRequest(cpu.bare, cpu.bareRequests) / perRequest(cpu.serve, cpu.serveRequests), target: "-", targetValue: 0 });
  out.push({
    note: `GET /v1/contexts/{id}: server CPU per request, bare node:http ${perRequest(cpu.bare, cpu.bareRequests).toFixed(1)} µs, ddsctl serve ${perRequest(cpu.serve, cpu.serveRequests).toFixed(1)} µs (all ${ROUNDS} rounds)`,
  });
  return out;
}
