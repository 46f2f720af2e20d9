import { getRequestListener } from "@hono/node-server";
import { randomUUID } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DdsError } from "../contract/errors.js";
import { reportFailure, type App, type Background, type PipelineObserver, type WebhookDispatcherOptions, type WorkerOptions } from "../engine/index.js";
import { appEngines, createApp } from "./app.js";
import { guardBareAnswers, HTTP_SERVER_OPTIONS, lacksHost, refuseMissingHost } from "./bare-answers.js";
import { createReadLane } from "./read-lane.js";
import type { IdempotencyOptions } from "./idempotency.js";
import { createMetrics, type ServerMetrics } from "./metrics.js";
import { listenMetrics, type MetricsListener } from "./metrics-listener.js";
import { createServerLogger, type LogFormat, type ServerLogger } from "./server-log.js";
import type { Activity, LogFn } from "./types.js";
import { DEFAULT_RATE_LIMITS } from "../contract/rate-limit.js";
import { createAppRateLimiter, type RateLimits } from "./rate-limit/index.js";
import { refusalReporter } from "./rate-limit/refusal-log.js";

/** Options of `createServer`. */
export interface ServerOptions {
  /** The application to serve (the caller closes it after the server). */
  app: App;
  /** Silences the access log. */
  quiet?: boolean;
  /** Where log lines go (default: stderr). */
  log?: LogFn;
  /** `plain` (default: the compact lines) or `json` (one pino object per line). */
  logFormat?: LogFormat;
  /** A logger made by the caller (`serve` logs its own events through it); overrides log, quiet and logFormat. */
  logger?: ServerLogger;
  /** Serve `GET /metrics` on a listener of its own (the API's port never does). */
  metrics?: { port: number; host?: string };
  /** Pipeline worker timing, or false to run no worker (tests of the HTTP layer alone). */
  worker?: WorkerOptions | false;
  /** Webhook dispatcher settings, or false to deliver nothing (events stay in the outbox). */
  webhooks?: WebhookDispatcherOptions | false;
  idempotency?: IdempotencyOptions & { purgeEveryMs?: number };
  /** Body size limit in bytes (default 10 MB). */
  maxBodyBytes?: number;
  /** After this long in-flight requests are cut off during shutdown (default 30 s). */
  shutdownTimeoutMs?: number;
  /** HTTP time-outs (defaults in {@link DEFAULT_TIMEOUTS}). */
  timeouts?: Partial<ServerTimeouts>;
  /**
   * The limits of workspaces and tokens without their own (default DEFAULT_RATE_LIMITS; a
   * null one: none), or false for no rate limiting at all (docs/rest-api.md, "Rate limits").
   */
  rateLimits?: RateLimits | false;
}

/** How long the server waits on a client. */
export interface ServerTimeouts {
  /** For a request's headers, from the first byte (slow-loris); then 408. */
  headersMs: number;
  /** For the whole request, body included; then 408. */
  requestMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveMs: number;
  /**
   * A request received but not answered after this long (its database neither answering
   * nor failing) is answered 503 with Retry-After; see deadline.ts.
   */
  responseMs: number;
}

/**
 * Headers within 10 s, the whole request within 60 s (a 10 MiB body needs ~1.4 Mbit/s),
 * idle keep-alive connections closed after 5 s (clients keep theirs for 4 s), an answer
 * within 60 s of the request's arrival.
 */
export const DEFAULT_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 60_000, keepAliveMs: 5_000, responseMs: 60_000 };

/** A listening server. */
export interface RunningServer {
  port: number;
  host: string;
  /** The API base URL, `http://host:port/v1`. */
  url: string;
  /** `http://host:port/metrics` when metrics are served. */
  metricsUrl?: string;
  /** Stops accepting, drains in-flight requests and the current pass, stops timers. */
  close(): Promise<void>;
}

const stderrLog: LogFn = (line) => process.stderr.write(`${line}\n`);

/**
 * The HTTP server of `ddsctl serve`: the API app, the pipeline worker, the webhook
 * dispatcher and the purge of expired idempotency keys, all over one store. On
 * PostgreSQL several such servers on one database are one service: they share claims,
 * keys, the outbox and cache invalidations through the database.
 */
export function createServer(options: ServerOptions) {
  const { store } = options.app;
  const logger = options.logger ?? createServerLogger({ format: options.logFormat, write: options.log ?? stderrLog, quiet: options.quiet });
  const activity: Activity = { lastWriteAt: 0, closing: false };
  const { auth } = options.app;
  const engines = appEngines(options.app);
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const metrics: ServerMetrics | undefined = options.metrics ? createMetrics(options.app) : undefined;
  const rateLimiter =
    options.rateLimits === false
      ? undefined
      : createAppRateLimiter(options.app, options.rateLimits ?? DEFAULT_RATE_LIMITS, refusalReporter(logger, metrics?.rateLimited), reportFailure(() => logger, "rate_budget_error"));
  const app = createApp({
    app: options.app,
    activity,
    logger,
    idempotency: options.idempotency,
    maxBodyBytes: options.maxBodyBytes,
    deadlineMs: timeouts.responseMs,
    onAuthRefused: metrics?.authRefused,
    rateLimiter,
  });
  const lane = createReadLane({ store, auth, engines, activity, logger, rateLimiter, markRoutes: metrics !== undefined });
  const worker: WorkerOptions | false | undefined = options.worker === false ? false : withObserver(options.worker, metrics, logger);

  async function listen(port = 8080, host = "127.0.0.1"): Promise<RunningServer> {
    const server = await new Promise<Server>((resolve, reject) => {
      // A request Node parsed but no URL can be built from (a target of `*`) never reaches
      // the app: answer it here, as problem+json like every other refusal.
      const appListener = getRequestListener(app.fetch, { hostname: host, errorHandler: (err) => listenerError(err, logger) });
      const handle = (req: IncomingMessage, res: ServerResponse) => (lacksHost(req) ? refuseMissingHost(res, logger) : lane(req, res, appListener));
      // Without metrics the listener is exactly what it was: no cost for what nobody scrapes.
      const listener = metrics
        ? (req: IncomingMessage, res: ServerResponse) => {
            metrics.track(req, res);
            handle(req, res);
          }
        : handle;
      const s = createHttpServer(
        { ...HTTP_SERVER_OPTIONS, headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, keepAliveTimeout: timeouts.keepAliveMs, connectionsCheckingInterval: CHECK_TIMEOUTS_EVERY_MS },
        listener,
      );
      guardBareAnswers(s, logger, { headersMs: timeouts.headersMs, requestMs: timeouts.requestMs });
      s.once("error", (err) => reject(new DdsError("unavailable", `cannot listen on ${host}:${port}: ${err.message}`)));
      s.listen(port, host, () => resolve(s));
    });
    let scrape: MetricsListener | undefined;
    try {
      if (metrics && options.metrics) scrape = await listenMetrics(metrics, options.metrics.port, options.metrics.host ?? "127.0.0.1", logger);
    } catch (err) {
      server.close();
      throw err;
    }
    const bound = (server.address() as AddressInfo).port;
    // The worker, the dispatcher, the key purge and the sealing of clear secrets are the application's.
    const background: Background = await options.app.start({
      activity,
      log: logger,
      sealSecrets: true,
      worker,
      webhooks: options.webhooks === false ? false : { onAttempt: metrics?.delivery, ...options.webhooks },
      purgeEveryMs: options.idempotency?.purgeEveryMs,
    });
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        activity.closing = true;
        await drain(server, options.shutdownTimeoutMs ?? 30_000);
        // What this node holds of the shared budgets goes back for the other nodes.
        await rateLimiter?.close().catch(reportFailure(() => logger, "rate_budget_error"));
        await scrape?.close();
        await background.stop();
      })());
    return { port: bound, host, url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}/v1`, metricsUrl: scrape?.url, close };
  }

  return { app, store, listen };
}

/** How often Node looks for requests past their time-out (its default, 30 s, would let one run 50 % over). */
const CHECK_TIMEOUTS_EVERY_MS = 1_000;

/**
 * Worker options whose pipeline also tells the metrics about claims and passes, and the log
 * about take-overs (any observer the caller gave is kept).
 */
function withObserver(options: WorkerOptions | undefined, metrics: ServerMetrics | undefined, logger: ServerLogger): WorkerOptions {
  const given = options?.pipeline?.observer;
  const observer: PipelineObserver = {
    claimed(claim) {
      given?.claimed?.(claim);
      metrics?.claimed(claim);
      if (claim.takenOver) logger.event("claim_takeover", { contextId: claim.contextId, workspace: claim.workspace }, "warn");
    },
    passed(claim, outcome, seconds) {
      given?.passed?.(claim, outcome, seconds);
      metrics?.passed(outcome, seconds);
    },
  };
  return { ...options, pipeline: { ...options?.pipeline, observer } };
}

/** The answer to a request the Node adapter could not hand to the app. */
function listenerError(err: unknown, logger: ServerLogger): Response {
  const badRequest = err instanceof Error && err.name === "RequestError";
  const problem = badRequest
    ? new DdsError("invalid_request", `malformed request target: ${err.message}`).toProblem()
    : new DdsError("internal_error", "the server failed to process the request; it has been logged").toProblem();
  if (!badRequest) reportFailure(() => logger, "request_error")(err);
  return new Response(JSON.stringify(problem), { status: problem.status, headers: { "content-type": "application/problem+json", "x-request-id": randomUUID() } });
}

/** Stops accepting and waits for in-flight requests; after `timeoutMs` cuts them off. */
function drain(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    // Keep-alive sockets that fall idle during the drain are closed as they appear.
    const sweep = setInterval(() => server.closeIdleConnections(), 25);
    const cutoff = setTimeout(() => server.closeAllConnections(), timeoutMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cutoff);
      resolve();
    });
    server.closeIdleConnections();
  });
}
