import { ROUTES } from "../contract/routes.js";
import type { DdsService } from "../contract/service.js";
import { normalizeBaseUrl } from "./base-url.js";
import { waitForPipeline } from "./pipeline-wait.js";
import { createRouteClient } from "../portable/route-client.js";
import { createTransport, type TransportOptions } from "./transport.js";

/** Options of the HTTP client: the base URL (with or without `/v1`), the token, tuning. */
export type HttpClientOptions = TransportOptions;

/**
 * The DdsService over HTTP (remote mode): every operation is built from the route table,
 * so it returns exactly what the server's engine returns, and a failure is the same
 * DdsError, read back from the problem body.
 */
export function createHttpClient(options: HttpClientOptions): DdsService {
  const transport = createTransport({ ...options, baseUrl: normalizeBaseUrl(options.baseUrl) });
  const rest = createRouteClient(ROUTES, transport.send);
  return {
    ...rest,
    runPipeline: (opts) => waitForPipeline(rest, opts),
    close: () => transport.close(),
  };
}
