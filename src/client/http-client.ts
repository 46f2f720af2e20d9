import type { ListQuery } from "../contract/list-query.js";
import { pathParams, ROUTES, type RouteSpec } from "../contract/routes.js";
import { toSearchParams } from "../contract/list-query.js";
import type { DdsService, WriteOptions } from "../contract/service.js";
import { normalizeBaseUrl } from "./base-url.js";
import { waitForPipeline } from "./pipeline-wait.js";
import { createTransport, type Transport, type TransportOptions } from "./transport.js";

/** Options of the HTTP client: the base URL (with or without `/v1`), the token, tuning. */
export type HttpClientOptions = TransportOptions;

type Call = (...args: unknown[]) => Promise<unknown>;

/** Builds one operation from its route: path parameters, then body, list query or include. */
function operation(transport: Transport, route: RouteSpec): Call {
  const names = pathParams(route.path);
  return async (...args) => {
    let path = route.path;
    names.forEach((name, i) => {
      path = path.replace(`{${name}}`, encodeURIComponent(String(args[i])));
    });
    const rest = args[names.length];
    let query: URLSearchParams | undefined;
    let body: unknown;
    if (route.body) body = rest;
    else if (route.query.kind === "list") query = toSearchParams(rest as ListQuery | undefined);
    else if (route.query.kind === "include") {
      const include = (rest as { include?: string[] } | undefined)?.include;
      if (include && include.length > 0) query = new URLSearchParams({ include: include.join(",") });
    }
    const options = route.writeOptions ? (args[names.length + 1] as WriteOptions | undefined) : undefined;
    return transport.send({ method: route.method, path, query, body, idempotencyKey: options?.idempotencyKey });
  };
}

/**
 * The DdsService over HTTP (remote mode): every operation is built from the route table,
 * so it returns exactly what the server's engine returns, and a failure is the same
 * DdsError, read back from the problem body.
 */
export function createHttpClient(options: HttpClientOptions): DdsService {
  const transport = createTransport({ ...options, baseUrl: normalizeBaseUrl(options.baseUrl) });
  const calls: Record<string, Call> = {};
  for (const route of ROUTES) calls[route.operation] = operation(transport, route);
  // The route table has one entry per REST operation of DdsService, with the argument
  // convention `operation` implements, so the record is that part of the interface.
  const rest = calls as unknown as Omit<DdsService, "runPipeline" | "close">;
  return {
    ...rest,
    runPipeline: (opts) => waitForPipeline(rest, opts),
    close: () => transport.close(),
  };
}
