import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { randomUUID } from "node:crypto";
import { onClientError, problem, writeProblem, type TimeoutsInWords } from "./client-error.js";
import { PROBLEM_TYPE } from "./problem.js";
import type { ServerLogger } from "./server-log.js";

/**
 * Node's HTTP server answers a few requests by itself, with an empty body, before any
 * listener of ours runs: an HTTP/1.1 request without `Host` (400, `requireHostHeader`),
 * an `Expect` other than `100-continue` (417), and a `CONNECT` (no answer at all: the
 * socket is just closed). Together with what its parser refuses (`clientError`), these
 * are every answer the server could give that is not problem+json; this file makes each
 * one problem+json. Servers built here pass {@link HTTP_SERVER_OPTIONS}, which turns
 * Node's own Host check off so that {@link lacksHost} can answer it.
 */

/** The node:http server options that hand the Host check to {@link lacksHost}. */
export const HTTP_SERVER_OPTIONS = { requireHostHeader: false } as const;

/**
 * True for an HTTP/1.1 request without a `Host` header, which RFC 9112 (section 3.2) says a
 * server must refuse with 400. (HTTP/1.0 needs none.) Reads rawHeaders, which is cheaper
 * than building `req.headers` on every request; clients send Host first, so this is
 * usually one comparison.
 */
export function lacksHost(req: IncomingMessage): boolean {
  if (req.httpVersionMajor !== 1 || req.httpVersionMinor !== 1) return false;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === "host") return false;
  return true;
}

/** Answers a request refused before routing with a problem, closing the connection. */
export function refuse(res: ServerResponse, status: number, code: string, detail: string, logger: ServerLogger | undefined): void {
  const body = JSON.stringify(problem(status, code, detail));
  const requestId = randomUUID();
  res.shouldKeepAlive = false;
  res.writeHead(status, { "content-type": PROBLEM_TYPE, "content-length": Buffer.byteLength(body), "x-request-id": requestId, connection: "close" });
  res.end(body);
  logger?.refused({ status, code, requestId });
}

/** The 400 for an HTTP/1.1 request without Host. */
export function refuseMissingHost(res: ServerResponse, logger: ServerLogger | undefined): void {
  refuse(res, 400, "invalid_request", "malformed HTTP request: an HTTP/1.1 request must carry a Host header", logger);
}

/**
 * Installs the listeners that make Node's own answers problem+json on `server`: parser
 * refusals and time-outs (400, 408, 431), an unknown `Expect` (417) and `CONNECT` (405,
 * this is no proxy). The Host check is done by the request listener ({@link lacksHost}).
 */
export function guardBareAnswers(server: Server, logger: ServerLogger | undefined, timeouts: TimeoutsInWords): void {
  server.on("clientError", onClientError(logger, timeouts));
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    refuse(res, 417, "expectation_failed", `the server cannot meet "Expect: ${req.headers.expect ?? ""}"; only 100-continue is supported`, logger);
  });
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    const p = problem(405, "method_not_allowed", "CONNECT is not allowed: this server is not a proxy");
    const requestId = writeProblem(socket, p, { Allow: "GET, POST, PUT, PATCH, DELETE" });
    logger?.refused({ status: 405, code: "method_not_allowed", requestId });
  });
}
