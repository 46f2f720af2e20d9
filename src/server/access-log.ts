import type { MiddlewareHandler } from "hono";
import { randomUUID } from "node:crypto";
import type { Activity, LogFn, ServerEnv } from "./types.js";

const WRITES = new Set(["POST", "PATCH", "PUT", "DELETE"]);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A request id for a request that brought none: a random UUID (cheaper than the
 * time-ordered ids of resources, which nothing sorts request ids by).
 */
export function newRequestId(): string {
  return randomUUID();
}

/**
 * The outermost middleware: request id (a sane `X-Request-Id` from the client, else a
 * new one, echoed back), the write clock the pipeline worker settles on, `Connection:
 * close` once shutdown began, and one JSON access-log line per request. The line never
 * holds the token or the body.
 */
export function accessLog(activity: Activity, log: LogFn | undefined): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const started = performance.now();
    const given = c.req.header("x-request-id");
    const requestId = given && REQUEST_ID.test(given) ? given : newRequestId();
    c.set("requestId", requestId);
    try {
      await next();
    } finally {
      if (WRITES.has(c.req.method)) activity.lastWriteAt = Date.now();
    }
    c.header("X-Request-Id", requestId);
    // While shutting down, ask keep-alive clients to go so the drain can finish.
    if (activity.closing) c.header("Connection", "close");
    if (!log) return;
    const entry: Record<string, unknown> = {
      time: new Date().toISOString(),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    };
    const principal = c.get("principal");
    if (principal) entry.workspace = principal.workspace;
    entry.requestId = requestId;
    if (c.res.status >= 500 && c.error) entry.error = c.error.message;
    log(JSON.stringify(entry));
  };
}
