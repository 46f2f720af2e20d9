import type { Handler } from "hono";
import { answerStatus } from "../contract/answer-status.js";
import { pathParams, type RouteSpec } from "../contract/routes.js";
import { parseRouteQuery } from "./query.js";
import { callRoute } from "./route-call.js";
import type { ServerEnv } from "./types.js";

/**
 * The REST → DdsService adapter of one route: path parameters in path order, then the
 * body, the list query or the include options (the calling convention of routes.ts);
 * then the route's success status, a Location for 201 and no body for 204.
 *
 * Bodies are validated by the service with the contract's schemas (parseBody), so a 400
 * says exactly what local mode says; the server checks transport (JSON syntax, size), the
 * query string and the token.
 */
export function routeHandler(route: RouteSpec): Handler<ServerEnv> {
  const params = pathParams(route.path);
  return async (c) => {
    // The query is parsed (and refused when malformed) even where the operation takes none.
    const query = parseRouteQuery(route, new URL(c.req.url).searchParams);
    const result = await callRoute(
      c.get("engine"),
      route,
      params.map((name) => c.req.param(name)),
      { bodyText: c.get("bodyText"), parsed: c.get("parsedBody"), query, idempotencyKey: c.req.header("idempotency-key") },
    );
    if (route.status === 204) return new Response(null, { status: 204 });
    // An answer may carry its own status: a contribution equal to its source's is 200, not 201.
    const status = (answerStatus(result) ?? route.status) as typeof route.status;
    if (route.created && status === 201) {
      const id = (result as Record<string, unknown>)[route.created.idField];
      c.header("Location", `/v1/${route.created.collection}/${encodeURIComponent(String(id))}`);
    }
    return c.json(result, status);
  };
}
