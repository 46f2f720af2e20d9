/**
 * The DdsService operations built from the route table over any transport. The remote
 * client sends them with undici; the studio's page sends the same calls with the
 * browser's fetch, so this file imports nothing but types and pure helpers.
 */
import { toSearchParams, type ListQuery } from "../contract/list-query.js";
import { pathParams } from "../contract/path-params.js";
import type { HttpMethod, RouteSpec } from "../contract/routes.js";
import type { DdsService, WriteOptions } from "../contract/service.js";

/** One request: path relative to the base, optional query and JSON body. */
export interface RequestSpec {
  method: HttpMethod;
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  /** The caller's key for a write (default: a new key per call, chosen by the transport). */
  idempotencyKey?: string;
}

/** What sends one request and answers its decoded JSON body (undefined for 204). */
export type SendFn = (spec: RequestSpec) => Promise<unknown>;

/**
 * The part of a route a caller needs: no schemas (`body` only has to be present), so the
 * page can carry a manifest of the routes without zod.
 */
export type RouteCall = Pick<RouteSpec, "operation" | "method" | "path" | "query" | "writeOptions"> & { body?: unknown };

/** The REST part of the service (what the route table reaches). */
export type RouteService = Omit<DdsService, "runPipeline" | "close">;

type Call = (...args: unknown[]) => Promise<unknown>;

/** Builds one operation from its route: path parameters, then body, list query or include. */
function operation(send: SendFn, route: RouteCall): Call {
  const names = pathParams(route.path);
  return async (...args) => {
    let path = route.path;
    names.forEach((name, i) => {
      path = path.replace(`{${name}}`, encodeURIComponent(String(args[i])));
    });
    const rest = args[names.length];
    let query: URLSearchParams | undefined;
    let body: unknown;
    if (route.body !== undefined) body = rest;
    else if (route.query.kind === "list") query = toSearchParams(rest as ListQuery | undefined);
    else if (route.query.kind === "include") {
      const include = (rest as { include?: string[] } | undefined)?.include;
      if (include && include.length > 0) query = new URLSearchParams({ include: include.join(",") });
    }
    const options = route.writeOptions ? (args[names.length + 1] as WriteOptions | undefined) : undefined;
    return send({ method: route.method, path, query, body, idempotencyKey: options?.idempotencyKey });
  };
}

/**
 * Every operation of `routes` over `send`. Given the whole route table it is the REST
 * part of the DdsService: the table has one entry per REST operation, with the argument
 * convention `operation` implements.
 */
export function createRouteClient(routes: readonly RouteCall[], send: SendFn): RouteService {
  const calls: Record<string, Call> = {};
  for (const route of routes) calls[route.operation] = operation(send, route);
  return calls as unknown as RouteService;
}
