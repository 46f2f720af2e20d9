import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DdsError } from "../contract/errors.js";
import { guardBareAnswers, HTTP_SERVER_OPTIONS, lacksHost, refuse, refuseMissingHost } from "./bare-answers.js";
import type { ServerMetrics } from "./metrics.js";
import type { ServerLogger } from "./server-log.js";

/** A listening metrics endpoint. */
export interface MetricsListener {
  /** `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/**
 * The metrics listener of `serve --metrics-port`: `GET /metrics` in the Prometheus text
 * format, on a port of its own, so that the API's port never exposes it (there it is a 404
 * like any unknown path). No token: whoever can reach this port can read it, which is why it
 * binds 127.0.0.1 unless told otherwise. Every other answer is problem+json, as on the API's
 * port.
 */
export async function listenMetrics(metrics: ServerMetrics, port: number, host: string, logger: ServerLogger | undefined): Promise<MetricsListener> {
  const server = createServer({ ...HTTP_SERVER_OPTIONS, headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 }, (req, res) => {
    if (lacksHost(req)) return refuseMissingHost(res, logger);
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics") return refuse(res, 404, "not_found", `no route ${req.method} ${path}; this port serves GET /metrics only`, logger);
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("allow", "GET, HEAD");
      return refuse(res, 405, "method_not_allowed", `${req.method} is not allowed on /metrics; allowed: GET, HEAD`, logger);
    }
    metrics.render().then(
      ({ contentType, body }) => {
        res.writeHead(200, { "content-type": contentType, "content-length": Buffer.byteLength(body), "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : body);
      },
      (err: unknown) => {
        logger?.event("metrics_error", { error: err instanceof Error ? err.message : String(err) }, "error");
        refuse(res, 500, "internal_error", "the metrics could not be collected; the cause has been logged", logger);
      },
    );
  });
  guardBareAnswers(server, logger, { headersMs: 10_000, requestMs: 30_000 });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => reject(new DdsError("unavailable", `cannot listen for metrics on ${host}:${port}: ${err.message}`)));
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}/metrics`,
    close: () => closeServer(server),
  };
}

/** Stops listening and closes every connection (a scraper's keep-alive one included). */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
