import type { ServerResponse } from "node:http";
import type { MiddlewareHandler } from "hono";
import type { ServerEnv } from "./types.js";

/**
 * The route template that answered a request (`/v1/contexts/{contextId}`), for metrics and
 * logs: labelled by template, never by raw path, so a label's values stay few. The read lane
 * marks the node:http response it answers; the app marks the response under its request
 * (the Node adapter hands it over as `c.env.outgoing`) and the request's context.
 */
const ROUTE = Symbol("ddsctl.route");

type Marked = ServerResponse & { [ROUTE]?: string };

/** Records `template` as the route of `res`. */
export function markRoute(res: ServerResponse, template: string): void {
  (res as Marked)[ROUTE] = template;
}

/** The route template recorded on `res`, if a route answered it. */
export function routeOf(res: ServerResponse): string | undefined {
  return (res as Marked)[ROUTE];
}

/** Middleware that marks the request as answered by `template` (first in a route's chain). */
export function routeMark(template: string): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    c.set("route", template);
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (outgoing) markRoute(outgoing, template);
    await next();
  };
}
