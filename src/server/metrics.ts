import type { IncomingMessage, ServerResponse } from "node:http";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { App, AttemptOutcome, Claim, PassOutcome } from "../engine/index.js";
import { FastHistogram, type Series } from "./fast-histogram.js";
import { routeOf } from "./route-mark.js";
import type { Refusal } from "./rate-limit/limiter.js";

/** The route label of a request no route answered (404, 405, parser refusals). */
export const UNMATCHED = "unmatched";
/** How long a scrape waits for the database before reporting it unreachable. */
const SCRAPE_DB_TIMEOUT_MS = 2_000;

const STARTED = Symbol("ddsctl.started");
const STATUS_CLASSES = ["0xx", "1xx", "2xx", "3xx", "4xx", "5xx"];
type Timed = ServerResponse & { [STARTED]?: number };

/** What the database said during one scrape. */
interface DatabaseReading {
  up: boolean;
  contexts?: { stale: number; computing: number };
  outbox?: { pending: number; due: number };
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
  const registers = [registry];
  let inFlight = 0;

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
  const takeovers = new Counter({ name: "dds_pipeline_claim_takeovers_total", help: "Claims this node took over from a worker whose lease had run out", registers });
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
  // Start at zero, so a rate() over them exists before the first event.
  for (const outcome of ["resolved", "stale", "fenced", "failed"] satisfies PassOutcome[]) passes.zero({ outcome });
  for (const outcome of ["delivered", "retrying", "failed"] satisfies AttemptOutcome[]) deliveries.inc({ outcome }, 0);

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

  let reading: Promise<DatabaseReading> | undefined;
  const readDatabase = async (): Promise<DatabaseReading> => {
    try {
      await within(store.ping(), SCRAPE_DB_TIMEOUT_MS);
    } catch {
      return { up: false };
    }
    try {
      const { contexts, outbox } = await within(app.backlog(), SCRAPE_DB_TIMEOUT_MS);
      return { up: true, contexts, outbox };
    } catch {
      return { up: true };
    }
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
      const { contexts } = await read();
      this.reset();
      if (contexts) for (const [freshness, n] of Object.entries(contexts)) this.set({ freshness }, n);
    },
  });
  const outboxGauge = (name: string, help: string, pick: (o: { pending: number; due: number }) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const { outbox } = await read();
        this.reset();
        if (outbox) this.set(pick(outbox));
      },
    });
  outboxGauge("dds_webhook_outbox_pending", "Webhook deliveries still to make (every workspace), due now or waiting for a retry", (o) => o.pending);
  outboxGauge("dds_webhook_outbox_due", "Webhook deliveries due now and not yet attempted: how far the dispatchers are behind", (o) => o.due);
  /** Request series by `method route status-class`, so an answer finds its series with one lookup. */
  const seriesByKey = new Map<string, Series>();
  /** The 'close' listener of a tracked response (one shared function: no closure per request). */
  function answered(this: Timed) {
    inFlight--;
    const started = this[STARTED];
    if (started === undefined || !this.headersSent) return;
    const method = this.req.method ?? "";
    const route = routeOf(this) ?? UNMATCHED;
    const statusClass = STATUS_CLASSES[Math.floor(this.statusCode / 100)] ?? "other";
    const key = `${method} ${route} ${statusClass}`;
    let series = seriesByKey.get(key);
    if (!series) {
      series = requests.seriesFor(key, { method, route, status_class: statusClass });
      seriesByKey.set(key, series);
    }
    series.observe((performance.now() - started) / 1000);
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
    /** The webhook dispatcher's side: how each attempt ended. */
    delivery(outcome: AttemptOutcome): void {
      deliveries.inc({ outcome });
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
