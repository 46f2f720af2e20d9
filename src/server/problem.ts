import type { Context } from "hono";
import { DdsError, isDdsError, type Problem } from "../contract/errors.js";

/** The media type of every error body (RFC 9457). */
export const PROBLEM_TYPE = "application/problem+json";

/** Writes a problem body with its status and media type. */
export function problemResponse(c: Context, problem: Problem, headers: Record<string, string> = {}): Response {
  return c.body(JSON.stringify(problem), problem.status as 400, { ...headers, "Content-Type": PROBLEM_TYPE });
}

/** The problem of a DdsError, with the auth challenge a 401 must carry and the Retry-After of a temporary refusal. */
export function errorResponse(c: Context, err: DdsError): Response {
  const headers: Record<string, string> = err.status === 401 ? { "WWW-Authenticate": 'Bearer realm="ddsctl"' } : {};
  if (err.retryAfter !== undefined) headers["Retry-After"] = String(err.retryAfter);
  return problemResponse(c, err.toProblem(), headers);
}

/** 405 is not one of the contract's codes (a client never needs it), so it is built here. */
export function methodNotAllowed(c: Context, allowed: string[]): Response {
  return problemResponse(
    c,
    {
      type: "https://ddsctl.dev/problems/method-not-allowed",
      title: "Method Not Allowed",
      status: 405,
      detail: `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allowed.join(", ")}`,
      code: "method_not_allowed",
    },
    { Allow: allowed.join(", ") },
  );
}

/** The generic 500: the cause goes to the log, never to the client. */
export function internalError(): DdsError {
  return new DdsError("internal_error", "the server failed to process the request; it has been logged");
}

/** True for the store's refusal while its database is away (background loops stay quiet on it). */
export function isDatabaseUnavailable(err: unknown): boolean {
  return isDdsError(err) && err.code === "database_unavailable";
}
