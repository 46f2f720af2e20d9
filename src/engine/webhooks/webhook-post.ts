import { STATUS_CODES } from "node:http";
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

const MAX_ERROR_LENGTH = 500;

/** Why a fetch threw, in words an operator can act on (`connect ECONNREFUSED …`). */
function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) return `timed out after ${timeoutMs} ms`;
  const cause = err instanceof Error ? (err.cause as { message?: string } | undefined) : undefined;
  const text = cause?.message ?? (err instanceof Error ? err.message : String(err));
  return text.slice(0, MAX_ERROR_LENGTH);
}

/**
 * One attempt: POSTs the payload signed per Standard Webhooks and says how it went. Only a
 * 2xx within the time-out is a delivery; a redirect is not followed (it could re-POST the
 * event elsewhere) and counts as a failure.
 */
export async function postDelivery(send: typeof fetch, req: PostRequest): Promise<PostOutcome> {
  try {
    const res = await send(req.url, {
      method: "POST",
      headers: signedHeaders(req.secret, req.messageId, req.at, req.payload),
      body: req.payload,
      redirect: "manual",
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    // The body is not needed; cancelling frees the connection for reuse.
    await res.body?.cancel().catch(() => undefined);
    if (res.status >= 200 && res.status < 300) return { ok: true, statusCode: res.status };
    // HTTP/2 and some servers send no reason phrase; the standard one reads better.
    const reason = res.statusText || STATUS_CODES[res.status];
    return { ok: false, statusCode: res.status, error: `HTTP ${res.status}${reason ? ` ${reason}` : ""}` };
  } catch (err) {
    return { ok: false, statusCode: null, error: describeFailure(err, req.timeoutMs) };
  }
}
