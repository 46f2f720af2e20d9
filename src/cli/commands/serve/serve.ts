import { errors } from "../../../contract/errors.js";
import { formatRateSpec } from "../../../contract/rate-limit.js";
import { defineCommand } from "../../core/define-command.js";
import type { CliIO } from "../../core/io.js";
import { loadServer } from "../../load-external.js";
import { Output } from "../../output/output.js";
import { describeTarget } from "../../target.js";
import { durationFlag } from "../../common/duration-flag.js";
import { MAKE_SECRET_KEY, startupHints } from "./startup-hints.js";
import { migrationProgress } from "../../common/migration-progress.js";
import { describeWebhookSettings, webhookArgs, webhookSettings } from "../../common/webhook-settings.js";
import { openWhenReachable, strayDatabaseErrors } from "./wait-for-database.js";
import { describeRateLimits, rateLimitArgs, rateLimitSettings } from "../../common/rate-limit-settings.js";

function parsePort(value: string, flag = "--port"): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw errors.usage(`${flag} must be an integer from 0 to 65535, got "${value}"`);
  return n;
}

function parseCount(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 1000) throw errors.usage(`${flag} must be an integer from 1 to 1000, got "${value}"`);
  return n;
}

/** The global options `serve` reads, each with the variable that sets it (docs/deployment.md lists them with serve's own). */
export const SERVE_GLOBALS: readonly (readonly [flag: string, env: string])[] = [
  ["--database <url>", "DDS_DATABASE_URL"],
  ["--local [db]", "DDS_DB"],
  ["--quiet", "DDS_QUIET=1"],
];

/** Resolves when SIGINT or SIGTERM arrives; a second signal cuts the drain short. */
function shutdownSignal(out: Output, io: CliIO): { received: Promise<string>; dispose(): void } {
  let first = true;
  let resolve!: (signal: string) => void;
  const received = new Promise<string>((r) => (resolve = r));
  const onSignal = (signal: NodeJS.Signals) => {
    if (!first) {
      out.warn(`${signal} again: stopping without waiting for in-flight requests`);
      io.exit?.(1);
    }
    first = false;
    resolve(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    received,
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/**
 * `ddsctl serve`: the REST API, the pipeline worker and the webhook dispatcher, on a
 * SQLite file or a PostgreSQL database; several nodes on one PostgreSQL are one service.
 */
export default defineCommand({
  command: "serve",
  description: "serve the REST API (under /v1), the pipeline worker and webhooks on a database (SQLite, or PostgreSQL for several nodes)",
  examples: [
    "ddsctl serve --port 8080",
    "ddsctl --local /srv/dds.db serve --host 0.0.0.0 --port 8080 --quiet",
    "ddsctl serve --database postgres://dds@db.internal/dds --host 0.0.0.0   # run one per node, behind a load balancer",
    "ddsctl serve --database 'postgres://dds@db-1,db-2/dds?target_session_attrs=read-write' --pool-size 20   # follows a failover",
    "ddsctl serve --port 0   # any free port; the URL is printed on stderr",
    "ddsctl serve --metrics-port 9464 --log-format json   # Prometheus metrics on 127.0.0.1:9464, JSON logs on stderr",
    "ddsctl serve --webhook-timeout 15s --webhook-schedule 5s,5m,30m,2h,5h,10h,10h --webhook-disable-after 3d",
    "ddsctl serve --workspace-rate 600000/min --token-rate 100000/min   # rate limits in cost units; off turns one off",
  ],
  args: {
    port: { type: "string", default: "8080", env: ["DDS_PORT", "PORT"], description: "TCP port (0 picks a free one)" },
    host: { type: "string", default: "127.0.0.1", env: "DDS_HOST", description: "interface to listen on" },
    lease: { type: "string", default: "30s", env: "DDS_LEASE", description: "how long a pass's claim lasts without a heartbeat before another node takes it over" },
    migrate: {
      type: "boolean",
      negatable: true,
      env: "DDS_MIGRATE",
      description: "refuse a database whose schema is behind instead of migrating it (run ddsctl migrate first; as a variable: DDS_MIGRATE=false)",
    },
    metricsPort: { type: "string", placeholder: "n", env: "DDS_METRICS_PORT", description: "serve GET /metrics (Prometheus) on this port, never on the API's (0 picks a free one)" },
    metricsHost: { type: "string", default: "127.0.0.1", env: "DDS_METRICS_HOST", description: "interface the metrics port listens on (no token protects it)" },
    logFormat: {
      type: "string",
      choices: ["plain", "json"],
      default: "plain",
      env: "DDS_LOG_FORMAT",
      description: "plain: compact lines as always; json: one JSON object per request and per event (pino)",
    },
    poolSize: {
      type: "string",
      placeholder: "n",
      env: "DDS_DB_POOL",
      envReadByCommand: true,
      description: "PostgreSQL: connections this node keeps (default: the URL's pool_size, else DDS_DB_POOL, else 10)",
    },
    pipelineConcurrency: {
      type: "string",
      placeholder: "n",
      env: "DDS_PIPELINE_CONCURRENCY",
      description: "passes in flight on this node: stale contexts claimed, read and committed together (default: the pool size on PostgreSQL, 1 on SQLite)",
    },
    ...webhookArgs,
    ...rateLimitArgs,
  },
  help: `Every flag can be set by the environment variable named with it (a flag on the command line wins, then the variable, then the default). The global options serve reads have theirs too: ${SERVE_GLOBALS.map(([flag, env]) => `${flag} (${env})`).join(", ")}.`,
  writes: true,
  async handler(args, ctx) {
    const flags = args;
    // serve handles SIGINT itself: it drains in-flight requests before it exits.
    ctx.handleInterrupt();
    const target = ctx.target();
    if (target.mode !== "local") {
      throw errors.usage(`serve runs on a database; drop --remote/DDS_BASE_URL and pick it with --database <url>, --local <db>, DDS_DATABASE_URL or DDS_DB (target was ${target.baseUrl})`);
    }
    // A bad value is refused naming where it came from: the flag, or its variable.
    const from = (key: string, flag: string) => (ctx.sourceOf(key) === "default" ? flag : ctx.sourceOf(key));
    const port = parsePort(String(flags.port), from("port", "--port"));
    const metricsPort = flags.metricsPort === undefined ? undefined : parsePort(String(flags.metricsPort), from("metricsPort", "--metrics-port"));
    const json = flags.logFormat === "json";
    const leaseMs = durationFlag(flags.lease, from("lease", "--lease"));
    const poolSize = parseCount(flags.poolSize === undefined ? undefined : String(flags.poolSize), "--pool-size");
    const concurrency = parseCount(flags.pipelineConcurrency === undefined ? undefined : String(flags.pipelineConcurrency), from("pipelineConcurrency", "--pipeline-concurrency"));
    if (leaseMs < 1000) throw errors.usage(`${from("lease", "--lease")} ${flags.lease}: a lease shorter than 1s would be taken over while its pass still runs`);
    const webhooks = webhookSettings(flags, (key) => ctx.sourceOf(key));
    // Lazy: engine code loads only for the command that uses it, never at start-up.
    const { secretKeyProblem } = await import("../../../engine/secrets/key-ring.js");
    // A key that cannot be read would start the node and refuse its first webhook (503): refuse it now.
    const keyProblem = secretKeyProblem(ctx.io.env);
    if (keyProblem) throw errors.usage(`${keyProblem}; make one with: ${MAKE_SECRET_KEY}`);
    const rateLimits = rateLimitSettings(flags, (key) => ctx.sourceOf(key));
    const { out } = ctx;
    // The address and background failures are printed even under --quiet (which silences
    // the access log): with --port 0 the address is the only way to learn the port.
    const always = new Output(ctx.io, { ...out.options, quiet: false });
    const { createServer, createServerLogger } = await loadServer();
    const logger = createServerLogger({ format: json ? "json" : "plain", write: (line) => always.info(line), quiet: out.options.quiet });
    // In JSON, every line on stderr is a JSON object: the messages people read become events.
    // Events are written under --quiet too (it silences request lines only).
    const say = (event: string, message: string, fields: Record<string, unknown> = {}) => (json ? logger.event(event, fields, "info", message) : always.info(message));
    // Lazy: engine code (the stores, their drivers) loads only for the command that uses it, never at start-up.
    const { onEngineEvent } = await import("../../../engine/events.js");
    const stopEvents = onEngineEvent(({ event, ...fields }) => logger.event(event, fields, event === "db_unreachable" ? "warn" : "info"));
    // Lazy: as above.
    const { openApp } = await import("../../../engine/app.js");
    const signals = shutdownSignal(out, ctx.io);
    const stray = strayDatabaseErrors((error) => logger.event("database_error_unhandled", { error }, "error"));
    try {
      // A database that is not up yet is waited for (saying what for), not given up on.
      const waiting = (message: string) => (json ? logger.event("waiting_for_database", {}, "warn", message) : always.info(message));
      const open = () => openApp({ location: target.db, env: ctx.io.env, migrate: flags.migrate, poolSize, onMigrationProgress: json ? undefined : migrationProgress(always) });
      const app = await openWhenReachable(open, waiting, signals.received);
      if (!app) return say("stopped", "stopped");
      const { store } = app;
      try {
        const metrics = metricsPort === undefined ? undefined : { port: metricsPort, host: String(flags.metricsHost) };
        const server = await createServer({ app, logger, metrics, worker: { pipeline: { leaseMs }, concurrency }, webhooks, rateLimits }).listen(port, flags.host);
        // The server serves every workspace: each request acts in its token's.
        if (!json) out.info(out.c.dim(describeTarget(target, { workspace: false })));
        if (json) logger.event("webhook_settings", { ...webhooks }, "info", describeWebhookSettings(webhooks));
        else out.info(out.c.dim(describeWebhookSettings(webhooks)));
        if (json) logger.event("rate_limits", { workspace: formatRateSpec(rateLimits.workspace), token: formatRateSpec(rateLimits.token) }, "info", describeRateLimits(rateLimits));
        else out.info(out.c.dim(describeRateLimits(rateLimits)));
        // Before the address: whoever waits for "listening on" has read every hint.
        // Lazy: as above.
        const { listTokens } = await import("../../../engine/auth/index.js");
        const active = (await listTokens(store)).filter((t) => !t.revokedAt).length;
        for (const hint of startupHints(target.db, active, ctx.io.env)) {
          if (json) logger.event("hint", {}, "warn", hint);
          else always.warn(hint);
        }
        if (json) logger.event("listening", { url: server.url, metricsUrl: server.metricsUrl ?? null, store: store.kind, location: store.location }, "info", `listening on ${server.url}`);
        else always.info(`listening on ${server.url}`);
        if (server.metricsUrl && !json) always.info(`metrics on ${server.metricsUrl}`);
        const signal = await signals.received;
        say("stopping", `${signal}: draining in-flight requests and the current pass`, { signal });
        await server.close();
      } finally {
        await app.close();
      }
      // Said once the database is closed too: nothing is left to keep the process up.
      say("stopped", "stopped");
    } finally {
      stray.dispose();
      stopEvents();
      signals.dispose();
    }
  },
});
