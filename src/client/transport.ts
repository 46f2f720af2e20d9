import { randomUUID } from "node:crypto";
import { Pool } from "undici";
import { DdsError, type Problem } from "../contract/errors.js";
import type { RequestSpec } from "./route-client.js";

/** Options of the HTTP transport. */
export interface TransportOptions {
  /** API base URL including `/v1`. */
  baseUrl: string;
  token: string;
  /** Keep-alive connections to the server (default 8). */
  connections?: number;
  /** Retries after a connection reset (default 3). */
  retries?: number;
  /** First back-off delay; doubled per retry (default 100 ms). */
  backoffMs?: number;
  /** Gives up on a response after this long (default 5 min: bulk requests can be slow). */
  timeoutMs?: number;
}


/** Errors after which the request may never have reached the server's handler. */
const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);
/** Errors that mean nothing is listening there. */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);
/** The server took too long to answer. */
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);
/** How often a retry that meets its own first attempt still running waits for it. */
const IN_PROGRESS_WAITS = 20;

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: string; errors?: { code?: string }[]; cause?: { code?: string } };
  return e?.code ?? e?.errors?.[0]?.code ?? e?.cause?.code;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function isProblem(value: unknown): value is Problem {
  const p = value as Problem;
  return typeof p === "object" && p !== null && typeof p.code === "string" && typeof p.status === "number";
}

/**
 * The wire of the HTTP client: a keep-alive undici Pool, bearer auth, JSON in and out,
 * problem bodies turned back into DdsError, and safe retries. A write gets one
 * Idempotency-Key per logical call, reused on every retry, so a retry after a reset
 * never applies the write twice.
 */
export function createTransport(options: TransportOptions) {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 300_000;
  const pool = new Pool(base.origin, { connections: options.connections ?? 8, keepAliveTimeout: 10_000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const retries = options.retries ?? 3;
  const backoffMs = options.backoffMs ?? 100;
  const unavailable = () => new DdsError("unavailable", `cannot reach ${options.baseUrl}: is ddsctl serve running at ${options.baseUrl}?`);

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
      return parsed;
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
    if (spec.method !== "GET") headers["idempotency-key"] = spec.idempotencyKey ?? randomUUID();
    let resets = 0;
    let waits = 0;
    for (;;) {
      let status: number;
      let text: string;
      let contentType: string;
      try {
        const res = await pool.request({ method: spec.method, path, headers, body: payload });
        status = res.statusCode;
        contentType = String(res.headers["content-type"] ?? "");
        text = await res.body.text();
      } catch (err) {
        const code = errorCode(err);
        if (code && RESET_CODES.has(code) && resets < retries) {
          await sleep(backoffMs * 2 ** resets++);
          continue;
        }
        if (code && (RESET_CODES.has(code) || UNREACHABLE_CODES.has(code))) throw unavailable();
        if (code && TIMEOUT_CODES.has(code)) {
          throw new DdsError("unavailable", `${options.baseUrl} did not answer within ${timeoutMs >= 1000 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`}`);
        }
        throw new DdsError("unavailable", `request to ${options.baseUrl} failed: ${(err as Error).message}`);
      }
      // A retry can overtake its own first attempt, still running on the server: wait for it.
      if (status === 409 && resets > 0 && waits < IN_PROGRESS_WAITS && text.includes('"idempotency_in_progress"')) {
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
