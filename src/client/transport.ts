import { randomUUID } from "node:crypto";
import { interceptors, Pool, type Dispatcher } from "undici";
import { withAnswerStatus } from "../contract/answer-status.js";
import { DdsError, type Problem } from "../contract/errors.js";
import { decideRetry, DEFAULT_RETRY, RESET_CODES, type RetryDecision } from "./retry-policy.js";
import type { RequestSpec } from "../portable/route-client.js";

/** Options of the HTTP transport. */
export interface TransportOptions {
  /** API base URL including `/v1`. */
  baseUrl: string;
  token: string;
  /** Keep-alive connections to the server (default 8). */
  connections?: number;
  /** Retries of one request at most (default 8). */
  retries?: number;
  /** First back-off delay; doubled per retry, with jitter, up to 5 s (default 100 ms). */
  backoffMs?: number;
  /** No retry starts later than this after a request's first try (default 60 s). */
  retryForMs?: number;
  /** A request refused for its rate is sent again as the server asks for this long (default 15 min). */
  throttledForMs?: number;
  /** Gives up on a response after this long (default 5 min: bulk requests can be slow). */
  timeoutMs?: number;
  /** Told before each retry: what failed and how long the client waits (progress lines, tests). */
  onRetry?: (notice: RetryNotice) => void;
}

/** One retry about to be made. */
export interface RetryNotice extends RetryDecision {
  method: string;
  path: string;
  /** 1 for the first retry of the request. */
  attempt: number;
  /** The status that is retried, or the connection error's code. */
  status?: number;
  code?: string;
  /** The Idempotency-Key sent again (writes). */
  idempotencyKey?: string;
}

/** Errors that mean nothing is listening there. */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);
/** The server took too long to answer. */
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);
/** How often a retry that meets its own first attempt still running waits for it. */
const IN_PROGRESS_WAITS = 20;
/** What undici's retry handler reports for an answer it may retry. */
const RETRYABLE_ANSWER = "UND_ERR_REQ_RETRY";

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: string; errors?: { code?: string }[]; cause?: { code?: string } };
  return e?.code ?? e?.errors?.[0]?.code ?? e?.cause?.code;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function isProblem(value: unknown): value is Problem {
  const p = value as Problem;
  return typeof p === "object" && p !== null && typeof p.code === "string" && typeof p.status === "number";
}

/** The first value of a response header. */
const headerValue = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * The wire of the HTTP client: a keep-alive undici Pool, bearer auth, JSON in and out,
 * problem bodies turned back into DdsError, and safe retries. A write gets one
 * Idempotency-Key per logical call, reused on every retry, so a retry never applies the
 * write twice.
 *
 * Retries go through undici's retry interceptor, which re-dispatches the request with its
 * body and headers (the key included) on the same pool; when and whether to retry is
 * {@link decideRetry}'s call (429/502/503/504 honouring Retry-After, connection resets,
 * capped jittered back-off, a bounded total time), since the interceptor's own policy
 * knows no jitter, no time budget and no Idempotency-Key.
 */
export function createTransport(options: TransportOptions) {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 300_000;
  const pool = new Pool(base.origin, { connections: options.connections ?? 8, keepAliveTimeout: 10_000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  // The interceptor's lists only matter to its default policy, which `retry` below replaces;
  // with throwOnError off, an answer not retried (or the last one) reaches the caller intact.
  const dispatcher = pool.compose(interceptors.retry({ throwOnError: false }));
  const settings = {
    ...DEFAULT_RETRY,
    ...(options.retries !== undefined && { retries: options.retries }),
    ...(options.backoffMs !== undefined && { backoffMs: options.backoffMs }),
    ...(options.retryForMs !== undefined && { retryForMs: options.retryForMs }),
    ...(options.throttledForMs !== undefined && { throttledForMs: options.throttledForMs }),
  };
  /**
   * Until when the server asked this client to hold back (a 429's Retry-After): requests
   * not yet sent wait for it too, rather than each spending an attempt to hear the same.
   */
  let pausedUntil = 0;
  /** Set by the first answer: from then on a refused connection is a restarting server. */
  let seenServer = false;
  const unavailable = () => new DdsError("unavailable", `cannot reach ${options.baseUrl}: is ddsctl serve running at ${options.baseUrl}?`);

  /** The retry callback of one request (its own count and clock). */
  function retryCallback(method: string, path: string, idempotencyKey: string | undefined) {
    const started = Date.now();
    const state = { retried: 0 };
    const retry = (err: Error, _context: unknown, done: (stop?: Error | null) => void) => {
      const e = err as Error & { statusCode?: number; headers?: Record<string, string | string[] | undefined> };
      const code = errorCode(err);
      const status = code === RETRYABLE_ANSWER ? e.statusCode : undefined;
      if (status !== undefined) seenServer = true;
      const decision = decideRetry(
        { method, keyed: idempotencyKey !== undefined, status, code: status === undefined ? code : undefined, retryAfter: headerValue(e.headers?.["retry-after"]), retried: state.retried, elapsedMs: Date.now() - started, seenServer },
        settings,
      );
      if (!decision) return done(err);
      if (status === 429 && decision.retryAfterMs !== undefined) pausedUntil = Math.max(pausedUntil, Date.now() + decision.retryAfterMs);
      state.retried++;
      options.onRetry?.({ method, path, attempt: state.retried, ...(status !== undefined ? { status } : { code }), ...decision, ...(idempotencyKey && { idempotencyKey }) });
      setTimeout(() => done(null), decision.waitMs);
    };
    return { retry, state };
  }

  function decode(status: number, text: string, contentType: string): unknown {
    if (status === 204 || text === "") return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (status >= 200 && status < 300) {
      if (parsed === undefined) throw new DdsError("internal_error", `the server at ${options.baseUrl} answered ${status} with a body that is not JSON`);
      // The status travels with the answer, as the local engine hands it (answer-status.ts).
      return parsed !== null && typeof parsed === "object" ? withAnswerStatus(parsed, status) : parsed;
    }
    if (isProblem(parsed)) throw DdsError.fromProblem(parsed);
    const code = status >= 502 && status <= 504 ? "unavailable" : "internal_error";
    throw new DdsError(code, `unexpected HTTP ${status} (${contentType || "no content type"}) from ${options.baseUrl}`);
  }

  async function send(spec: RequestSpec): Promise<unknown> {
    const qs = spec.query?.toString();
    const path = `${prefix}${spec.path}${qs ? `?${qs}` : ""}`;
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, accept: "application/json" };
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    if (payload !== undefined) headers["content-type"] = "application/json";
    const key = spec.method !== "GET" ? (spec.idempotencyKey ?? randomUUID()) : undefined;
    if (key !== undefined) headers["idempotency-key"] = key;
    const { retry, state } = retryCallback(spec.method, path, key);
    let waits = 0;
    for (let wait = pausedUntil - Date.now(); wait > 0; wait = pausedUntil - Date.now()) await sleep(wait);
    for (;;) {
      let status: number;
      let text: string;
      let contentType: string;
      try {
        // `retryOptions` is read by the retry interceptor per request (undici merges it with the global ones).
        const request = { method: spec.method, path, headers, body: payload, retryOptions: { retry, throwOnError: false } } as Dispatcher.RequestOptions;
        const res = await dispatcher.request(request);
        seenServer = true;
        status = res.statusCode;
        contentType = String(res.headers["content-type"] ?? "");
        text = await res.body.text();
      } catch (err) {
        const code = errorCode(err);
        if (code && (RESET_CODES.has(code) || UNREACHABLE_CODES.has(code))) throw unavailable();
        if (code && TIMEOUT_CODES.has(code)) {
          throw new DdsError("unavailable", `${options.baseUrl} did not answer within ${timeoutMs >= 1000 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`}`);
        }
        throw new DdsError("unavailable", `request to ${options.baseUrl} failed: ${(err as Error).message}`);
      }
      // A retry can overtake its own first attempt, still running on the server: wait for it.
      if (status === 409 && state.retried > 0 && waits < IN_PROGRESS_WAITS && text.includes('"idempotency_in_progress"')) {
        waits++;
        await sleep(250);
        continue;
      }
      return decode(status, text, contentType);
    }
  }

  return { send, close: () => pool.close() };
}

/** The transport type. */
export type Transport = ReturnType<typeof createTransport>;
