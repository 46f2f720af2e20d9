import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { Problem } from "../contract/errors.js";
import { PROBLEM_TYPE } from "./problem.js";
import type { ServerLogger } from "./server-log.js";

/** The server's time-outs (see ServerTimeouts in server.ts), for the 408's message. */
export interface TimeoutsInWords {
  headersMs: number;
  requestMs: number;
}

/** The problem of a request Node's HTTP parser (or its time-outs) refused, by error code. */
export function clientErrorProblem(code: string | undefined, reason: string, t: TimeoutsInWords): Problem {
  if (code === "HPE_HEADER_OVERFLOW") {
    return problem(431, "header_fields_too_large", "the request's headers exceed 16 KB; send fewer or shorter headers");
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return problem(408, "request_timeout", `the request was not received in time (headers within ${t.headersMs / 1000} s, the whole request within ${t.requestMs / 1000} s)`);
  }
  return problem(400, "invalid_request", `malformed HTTP request: ${reason}`);
}

/** A problem built outside the contract's codes (transport-level refusals). */
export function problem(status: number, code: string, detail: string): Problem {
  return { type: `https://ddsctl.dev/problems/${code.replace(/_/g, "-")}`, title: STATUS_CODES[status] ?? "Error", status, detail, code };
}

/** What Node hands a `clientError` listener (its error carries the parser's code and reason). */
type ClientError = Error & { code?: string; reason?: string };

/** The response in progress on a socket, if any (Node keeps it there; not part of its typings). */
type WithResponse = Duplex & { _httpMessage?: { headersSent?: boolean } | null };

/**
 * The `clientError` listener of the HTTP server: what Node's parser refuses (an unknown
 * method, two Content-Lengths, a bad chunk size, a NUL in a header, headers over 16 KB)
 * and the request time-outs get a problem+json answer written straight to the socket
 * (there is no request or response object at this point), then the connection closes.
 * A socket already answering, or already gone, is only destroyed.
 */
export function onClientError(logger: ServerLogger | undefined, timeouts: TimeoutsInWords): (err: ClientError, socket: Duplex) => void {
  return (err, socket) => {
    const busy = (socket as WithResponse)._httpMessage?.headersSent === true;
    if (err.code === "ECONNRESET" || err.code === "EPIPE" || !socket.writable || busy) {
      socket.destroy();
      return;
    }
    const p = clientErrorProblem(err.code, err.reason ?? err.message, timeouts);
    const requestId = writeProblem(socket, p);
    logger?.refused({ status: p.status, code: err.code ?? "unknown", requestId });
  };
}

/**
 * Writes a whole problem+json answer straight to a socket (no response object exists) and
 * closes the connection once it is flushed. Returns the answer's request id.
 */
export function writeProblem(socket: Duplex, p: Problem, headers: Record<string, string> = {}): string {
  const requestId = randomUUID();
  const body = JSON.stringify(p);
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  socket.write(
    `HTTP/1.1 ${p.status} ${p.title}\r\nContent-Type: ${PROBLEM_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
  // Closes once the answer is flushed, whether or not the client ever closes its side.
  const net = socket as Duplex & { destroySoon?: () => void };
  if (net.destroySoon) net.destroySoon();
  else socket.end();
  return requestId;
}
