/**
 * When the remote client sends a request again, and after how long. Pure: the transport
 * asks {@link decideRetry} after each failed attempt and does the waiting.
 */

/** Statuses that mean "not now": rate limited (with a Retry-After), or a gateway or node that is restarting or failing over. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
/** Errors after which the request may never have reached the server's handler. */
export const RESET_CODES: ReadonlySet<string> = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);
/**
 * Nothing listening: retried only once this client has had an answer from the server (a node
 * restarting), never for a first request, so a mistyped URL fails at once.
 */
export const REFUSED_CODES: ReadonlySet<string> = new Set(["ECONNREFUSED"]);

/** How hard the client retries. */
export interface RetrySettings {
  /** Retries of one request at most (default 8). */
  retries: number;
  /** First back-off delay; doubled per retry, with jitter (default 100 ms). */
  backoffMs: number;
  /** Longest back-off between two tries (default 5 s; a Retry-After may ask for longer). */
  maxBackoffMs: number;
  /** No retry starts later than this after the request's first try (default 60 s). */
  retryForMs: number;
  /**
   * A request refused for its rate (429 with Retry-After) is sent again, however often, as
   * long as this long after its first try (default 15 min): a throttled import slows down
   * instead of failing.
   */
  throttledForMs: number;
}

/** Defaults of {@link RetrySettings}: a rolling restart or a failover of a few seconds is ridden out. */
export const DEFAULT_RETRY: RetrySettings = { retries: 8, backoffMs: 100, maxBackoffMs: 5_000, retryForMs: 60_000, throttledForMs: 15 * 60_000 };

/** What failed: an answer's status and headers, or a connection error's code. */
export interface FailedAttempt {
  method: string;
  /** The request carries an Idempotency-Key (a write that may be sent again). */
  keyed: boolean;
  status?: number;
  code?: string;
  /** The answer's Retry-After header, as sent. */
  retryAfter?: string;
  /** Retries already made for this request. */
  retried: number;
  /** Milliseconds since the request's first try. */
  elapsedMs: number;
  /** The client has had an answer from this server before (refused connections are then a restart). */
  seenServer: boolean;
}

/** A retry to make: after how long, and what the server asked for. */
export interface RetryDecision {
  waitMs: number;
  /** Retry-After in milliseconds, when the answer carried one. */
  retryAfterMs?: number;
}

/**
 * Retry-After as milliseconds from `now`: delay-seconds or an HTTP date (RFC 9110 10.2.3);
 * undefined when absent or unreadable. A date in the past is 0.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Whether to try `attempt`'s request again, and when. Only a request that is safe to send
 * again is retried: a GET, or a write with an Idempotency-Key (the server replays or runs it
 * once); a write without one is never retried once it may have reached the server. The wait
 * is the server's Retry-After when given (plus up to 10 % jitter, so clients told the same
 * time do not return together), else an exponential back-off with "equal jitter" (half
 * fixed, half random) capped at `maxBackoffMs`. No retry is made past `retryForMs` since the
 * first try: a Retry-After beyond it ends the retries with the server's answer.
 *
 * A 429 is a rate limit: retried only with a Retry-After (a ddsctl server leaves it out
 * when the request can never pass, costing more than the limit allows at once), then as
 * often as the server asks within `throttledForMs`, not counted against `retries`.
 */
export function decideRetry(attempt: FailedAttempt, settings: RetrySettings, random: () => number = Math.random): RetryDecision | undefined {
  const safe = attempt.method === "GET" || attempt.keyed;
  if (!safe) return undefined;
  if (attempt.status === 429) {
    const asked = parseRetryAfter(attempt.retryAfter);
    if (asked === undefined) return undefined;
    const waitMs = Math.round(asked * (1 + 0.1 * random()));
    return attempt.elapsedMs + waitMs > settings.throttledForMs ? undefined : { waitMs, retryAfterMs: asked };
  }
  if (attempt.retried >= settings.retries) return undefined;
  let retryAfterMs: number | undefined;
  if (attempt.status !== undefined) {
    if (!RETRY_STATUSES.has(attempt.status)) return undefined;
    retryAfterMs = parseRetryAfter(attempt.retryAfter);
  } else {
    const code = attempt.code ?? "";
    if (!RESET_CODES.has(code) && !(attempt.seenServer && REFUSED_CODES.has(code))) return undefined;
  }
  const backoff = Math.min(settings.maxBackoffMs, settings.backoffMs * 2 ** attempt.retried);
  const waitMs = Math.round(retryAfterMs !== undefined ? retryAfterMs * (1 + 0.1 * random()) : backoff / 2 + (backoff / 2) * random());
  if (attempt.elapsedMs + waitMs > settings.retryForMs) return undefined;
  return retryAfterMs === undefined ? { waitMs } : { waitMs, retryAfterMs };
}
