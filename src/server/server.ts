import { getRequestListener } from "@hono/node-server";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DdsError } from "../contract/errors.js";
import type { Store } from "../engine/store/store.js";
import { createIdempotencyRepo } from "../engine/store/idempotency-repo.js";
import { createWebhookDispatcher, type WebhookDispatcherOptions } from "../engine/webhooks/index.js";
import { createAuthenticator } from "../engine/auth/index.js";
import { createApp } from "./app.js";
import { createEngineCache } from "./engines.js";
import { createReadLane } from "./read-lane.js";
import type { IdempotencyOptions } from "./idempotency.js";
import type { Activity, LogFn } from "./types.js";
import { startWorker, type RunningWorker, type WorkerOptions } from "./worker.js";

/** Options of `createServer`. */
export interface ServerOptions {
  /** The open store to serve (the caller closes it after the server). */
  store: Store;
  /** Silences the access log. */
  quiet?: boolean;
  /** Where log lines go (default: stderr). */
  log?: LogFn;
  /** Pipeline worker timing, or false to run no worker (tests of the HTTP layer alone). */
  worker?: WorkerOptions | false;
  /** Webhook dispatcher settings, or false to deliver nothing (events stay in the outbox). */
  webhooks?: WebhookDispatcherOptions | false;
  idempotency?: IdempotencyOptions & { purgeEveryMs?: number };
  /** Body size limit in bytes (default 10 MB). */
  maxBodyBytes?: number;
  /** After this long in-flight requests are cut off during shutdown (default 30 s). */
  shutdownTimeoutMs?: number;
}

/** A listening server. */
export interface RunningServer {
  port: number;
  host: string;
  /** The API base URL, `http://host:port/v1`. */
  url: string;
  /** Stops accepting, drains in-flight requests and the current pass, stops timers. */
  close(): Promise<void>;
}

const stderrLog: LogFn = (line) => process.stderr.write(`${line}\n`);

/** A structured log line for a background failure (never a stack). */
function logError(log: LogFn, event: string) {
  return (err: unknown) => log(JSON.stringify({ time: new Date().toISOString(), event, error: err instanceof Error ? err.message : String(err) }));
}

/**
 * The HTTP server of `ddsctl serve`: the API app, the pipeline worker, the webhook
 * dispatcher and the purge of expired idempotency keys, all over one store. On
 * PostgreSQL several such servers on one database are one service: they share claims,
 * keys, the outbox and cache invalidations through the database.
 */
export function createServer(options: ServerOptions) {
  const { store } = options;
  const log = options.log ?? stderrLog;
  const activity: Activity = { lastWriteAt: 0, closing: false };
  const accessLog = options.quiet ? undefined : log;
  const auth = createAuthenticator(store, { onError: logError(log, "token_touch_error") });
  const engines = createEngineCache(store);
  const app = createApp({ store, activity, log: accessLog, idempotency: options.idempotency, maxBodyBytes: options.maxBodyBytes, auth, engines });
  const lane = createReadLane({ store, auth, engines, activity, log: accessLog });

  async function listen(port = 8080, host = "127.0.0.1"): Promise<RunningServer> {
    const server = await new Promise<Server>((resolve, reject) => {
      const appListener = getRequestListener(app.fetch, { hostname: host });
      const s = createHttpServer((req, res) => lane(req, res, appListener));
      s.once("error", (err) => reject(new DdsError("unavailable", `cannot listen on ${host}:${port}: ${err.message}`)));
      s.listen(port, host, () => resolve(s));
    });
    const bound = (server.address() as AddressInfo).port;
    const worker: RunningWorker | undefined = options.worker === false ? undefined : startWorker(store, activity, options.worker, log);
    const dispatcher = options.webhooks === false ? undefined : createWebhookDispatcher(store, { onError: logError(log, "webhook_error"), ...options.webhooks });
    dispatcher?.start();
    const idem = createIdempotencyRepo(store);
    // A busy database only delays the purge; expired keys are ignored on lookup anyway.
    const purgeExpired = () => void idem.purge(Date.now()).catch(logError(log, "idempotency_purge_error"));
    const purge = setInterval(purgeExpired, options.idempotency?.purgeEveryMs ?? 10 * 60_000);
    purge.unref();
    purgeExpired();
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        activity.closing = true;
        await drain(server, options.shutdownTimeoutMs ?? 30_000);
        clearInterval(purge);
        await worker?.stop();
        await dispatcher?.stop();
      })());
    return { port: bound, host, url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}/v1`, close };
  }

  return { app, store, listen };
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
