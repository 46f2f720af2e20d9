// Issue 20: webhook delivery through real `ddsctl serve` processes. Deliveries per second
// to a receiver on 127.0.0.1 (a backlog committed at once, as events pile up during an
// outage), on SQLite with one node and on PostgreSQL with one node and two; then the
// latency of GETs while 100,000 deliveries wait on a receiver that answers slowly.
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueToken } from "../../dist/engine/auth/index.js";
import { openLocalEngine } from "../../dist/engine/local-engine.js";
import { createWebhookOutbox } from "../../dist/engine/webhooks/index.js";
import { startPostgres } from "../helpers/pg-cluster.mjs";
import { serve } from "./scale-bench.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// PostgreSQL seals webhook secrets with DDS_SECRET_KEY only: this process's engines (given
// this environment) and its servers (which inherit it) share one.
process.env.DDS_SECRET_KEY ??= randomBytes(32).toString("base64");

/** A receiver that counts POSTs and answers `status` after `delayMs`; the first and last arrival times. */
async function receiver({ status = 204, delayMs = 0 } = {}) {
  const stats = { count: 0, first: 0, last: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const answer = () => {
        const now = performance.now();
        stats.count++;
        stats.first ||= now;
        stats.last = now;
        res.writeHead(status).end();
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/hook`, stats, close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))) };
}

/** A webhook to `url`; then `write(count)` adds that many pending deliveries for it through the outbox, in one transaction. */
async function subscribed(engine, url) {
  await engine.createWebhook({ url, events: ["context.status_changed"] });
  const outbox = createWebhookOutbox();
  const { contextId } = await engine.createContext({ name: "bench" });
  return (count) =>
    engine.ctx.store.sql.tx(async (tx) => {
      for (let i = 0; i < count; i++) await outbox.emit(tx, "context.status_changed", { contextId, workspace: "default", from: "active", to: "completed" });
    });
}

/**
 * Deliveries per second of `nodes` servers on `location`: the servers start first, then a
 * backlog of `count` is committed at once (as when events pile up during an outage), so
 * every node sets off together; the rate runs from the first arrival to the last.
 */
async function throughput(label, location, open, nodes, count) {
  const rx = await receiver();
  const engine = await open();
  const write = await subscribed(engine, rx.url);
  const servers = [];
  for (let i = 0; i < nodes; i++) servers.push(await serve(location));
  await write(count);
  await engine.close();
  for (const end = Date.now() + 600_000; rx.stats.count < count; await sleep(20)) {
    if (Date.now() > end) throw new Error(`${label}: ${rx.stats.count} of ${count} delivered`);
  }
  for (const s of servers) await s.stop();
  await rx.close();
  return { name: `webhooks, ${label}: deliveries to a local receiver`, rows: count, seconds: (rx.stats.last - rx.stats.first) / 1000 };
}

/** GET latency (p50/p99) while `waiting` deliveries wait on a receiver that answers 503 after 200 ms. */
async function latencyWhileWaiting(waiting) {
  const dir = mkdtempSync(join(tmpdir(), "bench-webhooks-"));
  const db = join(dir, "dds.db");
  const rx = await receiver({ status: 503, delayMs: 200 });
  const engine = await openLocalEngine({ db, env: process.env });
  const { token } = await issueToken(engine.ctx.store, { workspace: "default", scopes: ["admin"] });
  await (await subscribed(engine, rx.url))(waiting);
  const hook = (await engine.listWebhooks()).data[0].webhookId;
  await engine.close();
  const server = await serve(db);
  const headers = { authorization: `Bearer ${token}` };
  const out = [];
  // Let the dispatcher fill its slots first: the GETs meet it busy.
  for (const end = Date.now() + 30_000; rx.stats.count < 64 && Date.now() < end; await sleep(20));
  for (const [what, path] of [
    ["GET /v1/webhooks/{id}", `/v1/webhooks/${hook}`],
    ["GET /v1/webhooks/{id}/deliveries?filter[status]=failed", `/v1/webhooks/${hook}/deliveries?filter[status]=failed&limit=50`],
    ["GET /v1/webhooks/{id}/deliveries?filter[status]=pending (first 50 of all waiting)", `/v1/webhooks/${hook}/deliveries?filter[status]=pending&limit=50`],
  ]) {
    const r = await autocannon({ url: `${server.origin}${path}`, headers, connections: 4, duration: 5 });
    if (r.non2xx) throw new Error(`${what} answered ${r.non2xx} non-2xx`);
    out.push({ note: `webhooks, SQLite 1 node, ${waiting.toLocaleString("en-US")} deliveries waiting (dispatcher busy, ${rx.stats.count} attempts so far): ${what} p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${Math.round(r.requests.average)} req/s` });
  }
  await server.stop();
  await rx.close();
  rmSync(dir, { recursive: true, force: true });
  return out;
}

/** Runs the webhook section; returns result rows and notes. */
export async function runWebhookBench({ deliveries = 20_000, waiting = 100_000 } = {}) {
  const out = [];
  const dir = mkdtempSync(join(tmpdir(), "bench-webhooks-"));
  const sqlite = join(dir, "dds.db");
  out.push(await throughput("SQLite, 1 node", sqlite, () => openLocalEngine({ db: sqlite, env: process.env }), 1, deliveries));
  const cluster = await startPostgres();
  try {
    for (const nodes of [1, 2]) {
      const url = await cluster.createDatabase();
      out.push(await throughput(`PostgreSQL, ${nodes} node${nodes > 1 ? "s" : ""}`, url, () => openLocalEngine({ db: url, env: process.env }), nodes, deliveries));
    }
  } finally {
    await cluster.stop();
  }
  rmSync(dir, { recursive: true, force: true });
  const rate = (label) => {
    const r = out.find((x) => x.name === `webhooks, ${label}: deliveries to a local receiver`);
    return r.rows / r.seconds;
  };
  out.push({ name: "webhooks: PostgreSQL 2 nodes vs 1 node, deliveries/s", ratio: rate("PostgreSQL, 2 nodes") / rate("PostgreSQL, 1 node"), target: "-", targetValue: 0 });
  out.push(...(await latencyWhileWaiting(waiting)));
  return out;
}
