import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { App, AttemptOutcome, Backlog, Claim, PassOutcome } from "../engine/index.js";
import { AUTH_REFUSALS, type AuthRefusal } from "./auth.js";
import { FastHistogram, type Series } from "./fast-histogram.js";
import { routeOf } from "./route-mark.js";
import type { Refusal } from "./rate-limit/limiter.js";

/**
 * prom-client's default gauges whose names end in `_total`, which Prometheus keeps for
 * counters (`promtool check metrics` refuses them): left out, since the same counts are in
 * `nodejs_active_handles`, `nodejs_active_requests` and `nodejs_active_resources` by type.
 */
const MISNAMED_DEFAULTS = ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"];

/**
 * The status codes the `code` label takes; any other is `other`, so a client cannot grow
 * the series without bound. Every status the API, its guards and its proxies answer.
 */
const STATUS_CODES = new Set([200, 201, 202, 204, 301, 302, 304, 400, 401, 403, 404, 405, 406, 408, 409, 411, 413, 414, 415, 422, 429, 431, 499, 500, 501, 502, 503, 504]);

/** This ddsctl's version (package.json, two folders up from src/server/ and dist/server/ alike). */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: string }).version ?? "unknown";
  } catch {
    return "unknown";
  }
}

/** The route label of a request no route answered (404, 405, parser refusals). */
export const UNMATCHED = "unmatched";
/** How long a scrape waits for the database before reporting it unreachable. */
const SCRAPE_DB_TIMEOUT_MS = 2_000;

const STARTED = Symbol("ddsctl.started");
const STATUS_CLASSES = ["0xx", "1xx", "2xx", "3xx", "4xx", "5xx"];
type Timed = ServerResponse & { [STARTED]?: number };

/** What the database said during one scrape: whether it answered, and the backlog when it did. */
interface DatabaseReading {
  up: boolean;
  backlog?: Backlog;
}

/** Rejects after `ms` (a scrape must not hang on a database that does not answer). */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The node's Prometheus metrics, in a registry of their own (several servers in one test
 * process do not mix). Request and pipeline metrics are counted as things happen, at the
 * cost of one histogram observation; backlogs, reachability and the pool are read when
 * scraped (collect callbacks), never per request. See docs/deployment.md#metrics.
 */
export function createMetrics(app: App) {
  const { store } = app;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  const registers = [registry];
  let inFlight = 0;

  new Gauge({
    name: "dds_build_info",
    help: "Always 1: the ddsctl version and the Node.js version this node runs, and its store, as labels",
    labelNames: ["version", "node_version", "store"] as const,
    registers,
  }).set({ version: packageVersion(), node_version: process.versions.node, store: store.kind }, 1);
  const responses = new Counter({
    name: "dds_http_responses_total",
    help: "Answers of this node by method, route template and status code (codes outside the ones the API answers are counted as other)",
    labelNames: ["method", "route", "code"] as const,
    registers,
  });
  const refused = new Counter({
    name: "dds_auth_failures_total",
    help: "Requests refused for their token, by reason: missing (no token), invalid (unknown or revoked), expired (401), scope (403: the token lacks the route's scope)",
    labelNames: ["reason"] as const,
    registers,
  });
  for (const reason of AUTH_REFUSALS) refused.inc({ reason }, 0);

  const requests = new FastHistogram({
    name: "dds_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer's end, by method, route template and status class",
    labelNames: ["method", "route", "status_class"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  new Gauge({
    name: "dds_http_requests_in_flight",
    help: "Requests received and not yet answered",
    registers,
    collect() {
      this.set(inFlight);
    },
  });
  const passes = new Histogram({
    name: "dds_pipeline_pass_duration_seconds",
    help: "Pipeline passes of this node, from claim to commit, by outcome: resolved, stale (evidence arrived meanwhile), fenced (the claim was taken over), failed",
    labelNames: ["outcome"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const takeovers = new Counter({ name: "dds_pipeline_claim_takeovers_total", help: "Claims this node took over from a worker whose session ended or whose lease had run out", registers });
  const deliveries = new Counter({
    name: "dds_webhook_delivery_attempts_total",
    help: "Webhook delivery attempts of this node, by outcome: delivered, retrying, failed (for good)",
    labelNames: ["outcome"] as const,
    registers,
  });
  const rateLimited = new Counter({
    name: "dds_http_rate_limited_total",
    help: "Requests refused 429 for their rate, by the limit that refused them (workspace or token) and its class: default (the server's limit) or custom (the workspace's or token's own)",
    labelNames: ["limit", "class"] as const,
    registers,
  });
  for (const limit of ["workspace", "token"]) for (const cls of ["default", "custom"]) rateLimited.inc({ limit, class: cls }, 0);
  const deliveryTime = new Histogram({
    name: "dds_webhook_delivery_duration_seconds",
    help: "Time a receiver took to answer this node's delivery attempts (or to fail them: a refused connection, the time-out), by outcome",
    labelNames: ["outcome"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  // Start at zero, so a rate() over them exists before the first event.
  for (const outcome of ["resolved", "stale", "fenced", "failed"] satisfies PassOutcome[]) passes.zero({ outcome });
  for (const outcome of ["delivered", "retrying", "failed"] satisfies AttemptOutcome[]) {
    deliveries.inc({ outcome }, 0);
    deliveryTime.zero({ outcome });
  }

  // Read before the gauges below send their queries (the registry starts every collect at
  // once): the pool's use is the node's, not this scrape's.
  const pool = store.poolStats?.bind(store);
  if (pool) {
    new Gauge({
      name: "dds_db_pool_connections",
      help: "Connections of this node's database pool, by state: in_use (a statement, transaction or reservation holds it) or idle (free)",
      labelNames: ["state"] as const,
      registers,
      collect() {
        const s = pool();
        this.set({ state: "in_use" }, s.inUse);
        this.set({ state: "idle" }, s.idle);
      },
    });
    new Gauge({ name: "dds_db_pool_waiting", help: "Database operations waiting for a pool connection (an upper bound)", registers, collect() { this.set(pool().waiting); } });
    new Gauge({ name: "dds_db_pool_max", help: "Connections this node's pool may open", registers, collect() { this.set(pool().max); } });
  }
  if (store.observeQueries) {
    const queries = new Histogram({
      name: "dds_db_query_duration_seconds",
      help: "This node's database operations (a statement, or a whole transaction), from a held connection to the answer, by outcome: ok, error",
      labelNames: ["outcome"] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const [ok, error] = [queries.labels({ outcome: "ok" }), queries.labels({ outcome: "error" })];
    store.observeQueries((seconds, failed) => (failed ? error : ok).observe(seconds));
  }

  let reading: Promise<DatabaseReading> | undefined;
  // The backlog last read: kept while the database does not answer, so an alert on it does
  // not clear during an outage (dds_db_up says the reading is old); absent before the first.
  let last: Backlog | undefined;
  const readDatabase = async (): Promise<DatabaseReading> => {
    try {
      await within(store.ping(), SCRAPE_DB_TIMEOUT_MS);
    } catch {
      return { up: false, backlog: last };
    }
    try {
      last = await within(app.backlog(), SCRAPE_DB_TIMEOUT_MS);
      showBacklog();
    } catch {
      // Kept as last read.
    }
    return { up: true, backlog: last };
  };
  // The registry collects every metric at once: the gauges of one scrape share the reading in flight.
  const read = () => {
    reading ??= readDatabase().finally(() => (reading = undefined));
    return reading;
  };

  new Gauge({
    name: "dds_db_up",
    help: "1 when the database answered a trivial query within 2 s at this scrape, else 0",
    registers,
    async collect() {
      this.set((await read()).up ? 1 : 0);
    },
  });
  new Gauge({
    name: "dds_pipeline_contexts_backlog",
    help: "Active contexts the pipeline still has to resolve (every workspace), by freshness: stale (waiting for a pass) or computing (claimed)",
    labelNames: ["freshness"] as const,
    registers,
    async collect() {
      const { backlog } = await read();
      if (backlog) for (const [freshness, n] of Object.entries(backlog.contexts)) this.set({ freshness }, n);
    },
  });
  // Gauges of the backlog without labels: prom-client would show 0 for one never set, so
  // each is registered once a reading exists (the first is asked for right away), and then
  // keeps the last value read while the database does not answer.
  const fromBacklog: [name: string, help: string, pick: (b: Backlog) => number][] = [
    [
      "dds_pipeline_oldest_stale_seconds",
      "How long the active context that has waited longest has been stale (or computing), every workspace; 0 when none waits",
      // Counted from when it turned stale, so it goes on growing while the database is away.
      (b) => (b.oldestStaleSince === null ? 0 : Math.max(0, (Date.now() - b.oldestStaleSince) / 1000)),
    ],
    ["dds_webhook_outbox_pending", "Webhook deliveries still to make (every workspace), due now or waiting for a retry", (b) => b.outbox.pending],
    ["dds_webhook_outbox_due", "Webhook deliveries due now and not yet attempted: how far the dispatchers are behind", (b) => b.outbox.due],
  ];
  let shown = false;
  const showBacklog = () => {
    if (shown) return;
    shown = true;
    for (const [name, help, pick] of fromBacklog) {
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          const { backlog } = await read();
          if (backlog) this.set(pick(backlog));
        },
      });
    }
  };
  void read().catch(() => undefined);
  /** Request series by `method route status`, so an answer finds its series with one lookup. */
  const seriesByKey = new Map<string, { duration: Series; answers: { inc(): void } }>();
  /** The 'close' listener of a tracked response (one shared function: no closure per request). */
  function answered(this: Timed) {
    inFlight--;
    const started = this[STARTED];
    if (started === undefined || !this.headersSent) return;
    const method = this.req.method ?? "";
    const route = routeOf(this) ?? UNMATCHED;
    const status = this.statusCode;
    const key = `${method} ${route} ${status}`;
    let series = seriesByKey.get(key);
    if (!series) {
      const statusClass = STATUS_CLASSES[Math.floor(status / 100)] ?? "other";
      const code = STATUS_CODES.has(status) ? String(status) : "other";
      series = { duration: requests.seriesFor(`${method} ${route} ${statusClass}`, { method, route, status_class: statusClass }), answers: responses.labels({ method, route, code }) };
      seriesByKey.set(key, series);
    }
    series.duration.observe((performance.now() - started) / 1000);
    series.answers.inc();
  }

  return {
    registry,
    /** Counts `req` in flight until its answer ends, then observes its duration (an aborted request, never answered, only leaves the in-flight count). */
    track(_req: IncomingMessage, res: ServerResponse): void {
      inFlight++;
      (res as Timed)[STARTED] = performance.now();
      res.on("close", answered);
    },
    /** The pipeline observer's side: take-overs and pass outcomes. */
    claimed(claim: Claim): void {
      if (claim.takenOver) takeovers.inc();
    },
    passed(outcome: PassOutcome, seconds: number): void {
      passes.observe({ outcome }, seconds);
    },
    /** The webhook dispatcher's side: how each attempt ended, and how long its receiver took. */
    delivery(outcome: AttemptOutcome, seconds: number): void {
      deliveries.inc({ outcome });
      deliveryTime.observe({ outcome }, seconds);
    },
    /** The API's side: a request refused for its token. */
    authRefused(reason: AuthRefusal): void {
      refused.inc({ reason });
    },
    /** A request refused for its rate. */
    rateLimited(r: Refusal): void {
      rateLimited.inc({ limit: r.limit, class: r.class });
    },
    /** The exposition: the text format and its content type. */
    async render(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** A node's metrics. */
export type ServerMetrics = ReturnType<typeof createMetrics>;
