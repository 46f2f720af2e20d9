import { Agent as HttpAgent, request as httpRequest, STATUS_CODES } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { signedHeaders } from "./webhook-sign.js";

/** How one POST ended: a 2xx, or a failure with the status (if any) and the reason. */
export type PostOutcome = { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string };

/** What one POST needs. */
export interface PostRequest {
  url: string;
  /** The opened signing secret (`whsec_…`). */
  secret: string;
  messageId: string;
  payload: string;
  /** When the attempt is signed (its `webhook-timestamp`). */
  at: Date;
  timeoutMs: number;
}

/** Sends one POST and answers its status; the body is read and dropped. Never follows a redirect. */
export interface Sender {
  post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<{ status: number; statusText: string }>;
  /** Closes kept-alive connections. */
  close(): void;
}

/**
 * The default sender: node:http(s) with keep-alive agents, a connection per attempt in
 * flight at most. About twice the throughput of `fetch` for small POSTs, with nothing to
 * unwrap (no streams, no redirect handling to turn off).
 */
export function httpSender(): Sender {
  const agents = { "http:": new HttpAgent({ keepAlive: true }), "https:": new HttpsAgent({ keepAlive: true }) };
  return {
    post: (url, headers, body, signal) =>
      new Promise((resolve, reject) => {
        const target = new URL(url);
        const request = target.protocol === "https:" ? httpsRequest : httpRequest;
        const req = request(target, { method: "POST", headers: { ...headers, "content-length": Buffer.byteLength(body) }, agent: agents[target.protocol as "http:" | "https:"], signal }, (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? "" }));
          res.on("error", reject);
        });
        req.on("error", reject);
        req.end(body);
      }),
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}

/** A sender over a `fetch` function (tests pass their own). */
export function fetchSender(send: typeof fetch): Sender {
  return {
    async post(url, headers, body, signal) {
      // A redirect is not a delivery: following it could re-POST the event elsewhere.
      const res = await send(url, { method: "POST", headers, body, redirect: "manual", signal });
      // The body is not needed; cancelling frees the connection for reuse.
      await res.body?.cancel().catch(() => undefined);
      return { status: res.status, statusText: res.statusText };
    },
    close: () => undefined,
  };
}

const MAX_ERROR_LENGTH = 500;

/** Why a send threw, in words an operator can act on (`connect ECONNREFUSED …`). */
function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) return `timed out after ${timeoutMs} ms`;
  const cause = err instanceof Error ? (err.cause as { message?: string } | undefined) : undefined;
  const text = cause?.message ?? (err instanceof Error ? err.message : String(err));
  return text.slice(0, MAX_ERROR_LENGTH);
}

/**
 * One attempt: POSTs the payload signed per Standard Webhooks and says how it went. Only a
 * 2xx within the time-out is a delivery; a redirect counts as a failure.
 */
export async function postDelivery(sender: Sender, req: PostRequest): Promise<PostOutcome> {
  try {
    const res = await sender.post(req.url, signedHeaders(req.secret, req.messageId, req.at, req.payload), req.payload, AbortSignal.timeout(req.timeoutMs));
    if (res.status >= 200 && res.status < 300) return { ok: true, statusCode: res.status };
    // HTTP/2 and some servers send no reason phrase; the standard one reads better.
    const reason = res.statusText || STATUS_CODES[res.status];
    return { ok: false, statusCode: res.status, error: `HTTP ${res.status}${reason ? ` ${reason}` : ""}` };
  } catch (err) {
    return { ok: false, statusCode: null, error: describeFailure(err, req.timeoutMs) };
  }
}
