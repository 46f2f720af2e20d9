import type { MiddlewareHandler } from "hono";
import { randomUUID } from "node:crypto";
import { ClientAbortedError } from "./body.js";
import type { ServerLogger } from "./server-log.js";
import type { Activity, ServerEnv } from "./types.js";

const WRITES = new Set(["POST", "PATCH", "PUT", "DELETE"]);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request id of a request: its own `X-Request-Id` when sane, else a random UUID
 * (cheaper than the time-ordered ids of resources, which nothing sorts request ids by).
 */
export function requestIdOf(given: string | undefined): string {
  return given && REQUEST_ID.test(given) ? given : randomUUID();
}

/** What one access-log line says (never the token or the body). */
export interface AccessEntry {
  method: string;
  path: string;
  /** The route template that answered, when one did (the JSON log shows it). */
  route?: string;
  status: number;
  started: number;
  workspace?: string;
  requestId: string;
  error?: string;
  /** The client went away before its request was read (logged instead of a status). */
  aborted?: boolean;
}

/** One access-log line, the same for the app and the read lane. */
export function accessLine(e: AccessEntry): string {
  const entry: Record<string, unknown> = {
    time: new Date().toISOString(),
    method: e.method,
    path: e.path,
    ...(e.aborted ? { aborted: true } : { status: e.status }),
    ms: Math.round((performance.now() - e.started) * 10) / 10,
  };
  if (e.workspace) entry.workspace = e.workspace;
  entry.requestId = e.requestId;
  if (e.error) entry.error = e.error;
  return JSON.stringify(entry);
}

/**
 * The outermost middleware: request id (a sane `X-Request-Id` from the client, else a
 * new one, echoed back), the write clock the pipeline worker settles on, `Connection:
 * close` once shutdown began, and one access-log line per request through `logger` (which
 * keeps a 5xx line, with what failed, even when access lines are silenced). The line never
 * holds the token or the body. A client that went away mid-request is logged as
 * `aborted`, not as a failure of the server.
 */
export function accessLog(activity: Activity, logger: ServerLogger | undefined): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdOf(c.req.header("x-request-id"));
    c.set("requestId", requestId);
    try {
      await next();
    } finally {
      if (WRITES.has(c.req.method)) activity.lastWriteAt = Date.now();
    }
    c.header("X-Request-Id", requestId);
    // While shutting down, ask keep-alive clients to go so the drain can finish.
    if (activity.closing) c.header("Connection", "close");
    if (!logger) return;
    const aborted = c.error instanceof ClientAbortedError;
    const error = c.res.status >= 500 && !aborted && !c.get("answerNotFailure") ? (c.error?.message ?? `status ${c.res.status}`) : undefined;
    logger.request({ method: c.req.method, path: c.req.path, route: c.get("route"), status: c.res.status, started, workspace: c.get("principal")?.workspace, requestId, error, aborted });
  };
}
