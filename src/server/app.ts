import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { DdsError, isDdsError } from "../contract/errors.js";
import { ROUTES } from "../contract/routes.js";
import { type Authenticator, type App, asDatabaseUnavailable } from "../engine/index.js";
import { accessLog } from "./access-log.js";
import { requireToken, type AuthRefusal } from "./auth.js";
import { ClientAbortedError, readBody } from "./body.js";
import { routeHandler } from "./handler.js";
import { idempotency, type IdempotencyOptions } from "./idempotency.js";
import { notFound } from "./not-found.js";
import { serveDocs } from "./docs.js";
import { declareRoute, openApiDocument } from "./openapi.js";
import { errorResponse, internalError, problemResponse } from "./problem.js";
import { deadline } from "./deadline.js";
import { routeMark } from "./route-mark.js";
import type { RateLimiter } from "./rate-limit/limiter.js";
import { rateLimit } from "./rate-limit/middleware.js";
import type { ServerLogger } from "./server-log.js";
import type { Activity, Engines, ServerEnv } from "./types.js";

/** What the API app is built from. */
export interface AppOptions {
  /** The application served: its store, tokens, engines, secrets and owner lock. */
  app: App;
  activity: Activity;
  /** Where request lines go (it decides what --quiet silences); undefined logs nothing. */
  logger?: ServerLogger;
  idempotency?: IdempotencyOptions;
  /** Body size limit in bytes (default 10 MB; tests lower it). */
  maxBodyBytes?: number;
  /** Longest a request runs before it is answered 503 (its work may still finish; keyed writes keep its outcome). */
  deadlineMs?: number;
  /** Who may call, and the engine each caller gets (default: the application's tokens and engines; the studio has its session). */
  auth?: Authenticator;
  engines?: Engines;
  /** Charges every request of a route its cost (docs/rest-api.md, "Rate limits"); absent: no limits (the studio's own app). */
  rateLimiter?: RateLimiter;
  /** Told of every request refused for its token (the metrics count them by reason). */
  onAuthRefused?: (reason: AuthRefusal) => void;
}

/**
 * Maps anything thrown to a problem response; a non-DdsError is a 500 that leaks nothing,
 * unless it is the database failing (a lost connection the store did not catch): a 503
 * with Retry-After, like every other refusal while the database is away.
 */
function onError(err: Error, c: Parameters<typeof errorResponse>[0], debug: boolean): Response {
  if (isDdsError(err)) return errorResponse(c, err);
  const unavailable = asDatabaseUnavailable(err);
  if (unavailable) return errorResponse(c, unavailable);
  // Nobody reads this answer; the access log says `aborted`.
  if (err instanceof ClientAbortedError) return problemResponse(c, { type: "https://ddsctl.dev/problems/client-closed-request", title: "Client Closed Request", status: 499, detail: err.message, code: "client_closed_request" });
  if (err instanceof HTTPException && err.status < 500) return errorResponse(c, new DdsError("invalid_request", err.message));
  // DDS_DEBUG=1 in the application's environment: the stack on stderr, never in the answer.
  if (debug) process.stderr.write(`${err.stack ?? err.message}\n`);
  return errorResponse(c, internalError());
}

/**
 * The REST API as a Hono app: `/healthz`, `/readyz` and `/v1/openapi.json` without auth, then one
 * route per entry of the route table, each behind token auth, the body limit and the
 * Idempotency-Key rules. Registration follows the table's order, so `/records/bulk` is
 * matched before `/records/{recordId}`.
 */
export function createApp(options: AppOptions): OpenAPIHono<ServerEnv> {
  const app = new OpenAPIHono<ServerEnv>();
  const { store } = options.app;
  const auth = options.auth ?? options.app.auth;
  const engines = options.engines ?? appEngines(options.app);
  const keys = options.app.idempotency;
  // SQLite marks running keys with this process's owner lock; PostgreSQL's marks are
  // session advisory locks, which need none.
  const owner = options.app.owner;
  const box = options.app.secrets;
  app.use("*", accessLog(options.activity, options.logger));
  if (options.deadlineMs) app.use("/v1/*", deadline(options.deadlineMs));
  // Liveness only: 200 while this process serves, whatever its database does (a node is
  // not restarted because the database restarted; it reconnects by itself). The database
  // field is what the node knows without asking. Readiness asks the database (within 2 s)
  // and also turns false once shutdown began, so a load balancer routes around the node.
  const database = async () => {
    try {
      await store.ping();
      return true;
    } catch {
      return false;
    }
  };
  app.get("/healthz", routeMark("/healthz"), (c) => c.json({ status: "ok", database: store.reachable?.() === false ? "unreachable" : "reachable" }));
  // Probes come every few seconds: what is logged is the change (not ready, ready again),
  // once each, not every 503 (which is the probe's answer, not a failure of the node).
  let notReadySince: number | undefined;
  const readiness = (ready: boolean) => {
    if (!ready && notReadySince === undefined) {
      notReadySince = Date.now();
      options.logger?.event("not_ready", { reason: "database_unreachable" }, "warn", "not ready: /readyz answers 503 until the database answers again");
    } else if (ready && notReadySince !== undefined) {
      options.logger?.event("ready", { notReadyMs: Date.now() - notReadySince }, "info", "ready: /readyz answers 200 again");
      notReadySince = undefined;
    }
  };
  app.get("/readyz", routeMark("/readyz"), async (c) => {
    c.set("answerNotFailure", true);
    // Draining is said by the `stopping` event.
    if (options.activity.closing) return c.json({ status: "draining" }, 503);
    const ready = await database();
    readiness(ready);
    return ready ? c.json({ status: "ready" }) : c.json({ status: "unavailable", database: "unreachable" }, 503);
  });
  let doc: object | undefined;
  app.get("/v1/openapi.json", routeMark("/v1/openapi.json"), (c) => c.json((doc ??= openApiDocument(app))));
  app.use("/docs", routeMark("/docs"));
  app.use("/docs/*", routeMark("/docs"));
  serveDocs(app);
  for (const route of ROUTES) {
    declareRoute(app, route);
    const path = `/v1${route.path.replace(/\{([^}]+)\}/g, ":$1")}`;
    const chain = [routeMark(`/v1${route.path}`), requireToken(route, auth, engines, options.onAuthRefused), readBody(route, options.maxBodyBytes)];
    // Before the Idempotency-Key: a request refused for its rate leaves its key unrecorded.
    if (options.rateLimiter) chain.push(rateLimit(route, options.rateLimiter));
    if (route.method !== "GET") chain.push(idempotency(keys, options.idempotency, { engineStores: route.writeOptions, owner, box: route.secret ? box : undefined }));
    // Spread: Hono takes a route's handlers as arguments; the chain is these four at most.
    app.on([route.method], [path], ...chain, routeHandler(route));
  }
  app.notFound(notFound);
  const debug = options.app.env.DDS_DEBUG === "1";
  app.onError((err, c) => onError(err, c, debug));
  return app;
}

/** The engines of an application's tokens (each token acts in its workspace as `token:<tokenId>`). */
export function appEngines(app: App): Engines {
  return { get: (principal) => app.engineFor(principal) };
}
