import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../core/define-command.js";
import type { CliIO } from "../../core/io.js";
import { loadServer } from "../../load-external.js";
import { Output } from "../../output.js";
import { describeTarget } from "../../target.js";
import { durationFlag } from "../../common/duration-flag.js";
import { describeWebhookSettings, webhookArgs, webhookSettings } from "../../common/webhook-settings.js";

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw errors.usage(`--port must be an integer from 0 to 65535, got "${value}"`);
  return n;
}

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
    "ddsctl serve --port 0   # any free port; the URL is printed on stderr",
    "ddsctl serve --webhook-timeout 15s --webhook-schedule 5s,5m,30m,2h,5h,10h,10h --webhook-disable-after 3d",
  ],
  args: {
    port: { type: "string", default: "8080", description: "TCP port (0 picks a free one)" },
    host: { type: "string", default: "127.0.0.1", description: "interface to listen on" },
    lease: { type: "string", default: "30s", description: "how long a pass's claim lasts without a heartbeat before another node takes it over" },
    migrate: { type: "boolean", negatable: true, description: "refuse a database whose schema is behind instead of migrating it (run ddsctl migrate first)" },
    ...webhookArgs,
  },
  writes: true,
  async handler(args, ctx) {
    const flags = args;
    // serve handles SIGINT itself: it drains in-flight requests before it exits.
    ctx.handleInterrupt();
    const target = ctx.target();
    if (target.mode !== "local") {
      throw errors.usage(`serve runs on a database; drop --remote/DDS_BASE_URL and pick it with --database <url>, --local <db>, DDS_DATABASE_URL or DDS_DB (target was ${target.baseUrl})`);
    }
    const port = parsePort(String(flags.port));
    const leaseMs = durationFlag(flags.lease, "--lease");
    if (leaseMs < 1000) throw errors.usage(`--lease ${flags.lease}: a lease shorter than 1s would be taken over while its pass still runs`);
    const webhooks = webhookSettings(flags, ctx.io.env);
    const { out } = ctx;
    // The address and background failures are printed even under --quiet (which silences
    // the access log): with --port 0 the address is the only way to learn the port.
    const always = new Output(ctx.io, { ...out.options, quiet: false });
    const { createServer } = await loadServer();
    const { openDatabase } = await import("../../../engine/store/db.js");
    const store = await openDatabase(target.db, { migrate: flags.migrate });
    const signals = shutdownSignal(out, ctx.io);
    try {
      const server = await createServer({ store, quiet: out.options.quiet, log: (line) => always.info(line), worker: { pipeline: { leaseMs } }, webhooks }).listen(port, flags.host);
      out.info(out.c.dim(describeTarget(target)));
      out.info(out.c.dim(describeWebhookSettings(webhooks)));
      always.info(`listening on ${server.url}`);
      const signal = await signals.received;
      out.info(`${signal}: draining in-flight requests and the current pass`);
      await server.close();
      out.info("stopped");
    } finally {
      signals.dispose();
      await store.close();
    }
  },
});
