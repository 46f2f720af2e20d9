/**
 * The one error family of ddsctl. Every failure that crosses a boundary (engine → CLI,
 * server → HTTP, HTTP → client) is a DdsError with a stable `code`, the HTTP `status` of
 * docs/rest-api.md and the CLI exit code of docs/cli.md.
 */

/** One problem inside a 422/400 answer: where (`path`) and what (`message`). */
export interface ProblemDetail {
  path: string;
  message: string;
}

/** Stable, machine-readable error codes (docs/rest-api.md). */
export type ErrorCode =
  | "invalid_request"
  | "bulk_limit_exceeded"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "name_taken"
  | "model_not_archived"
  | "model_has_records"
  | "context_not_archived"
  | "model_not_active"
  | "context_not_active"
  | "model_archived"
  | "webhook_disabled"
  | "idempotency_in_progress"
  | "payload_too_large"
  | "rate_limited"
  | "invalid_transition"
  | "validation_failed"
  | "compile_failed"
  | "not_implemented"
  | "unavailable"
  | "database_unavailable"
  | "database_login_refused"
  | "schema_too_new"
  | "internal_error";

const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  bulk_limit_exceeded: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  name_taken: 409,
  model_not_archived: 409,
  model_has_records: 409,
  context_not_archived: 409,
  model_not_active: 409,
  context_not_active: 409,
  model_archived: 409,
  webhook_disabled: 409,
  idempotency_in_progress: 409,
  payload_too_large: 413,
  rate_limited: 429,
  invalid_transition: 422,
  validation_failed: 422,
  compile_failed: 422,
  not_implemented: 501,
  unavailable: 503,
  database_unavailable: 503,
  database_login_refused: 503,
  schema_too_new: 503,
  internal_error: 500,
};

/** Every error code with its HTTP status: docs/problems.md documents each (a test keeps them in step). */
export const ERROR_STATUSES: Readonly<Record<ErrorCode, number>> = STATUS;

const TITLE: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  413: "Content Too Large",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
};

/** CLI exit codes of docs/cli.md. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  partial: 3,
  notFound: 4,
  timeout: 5,
  /** The database (or the service's database) cannot be reached now; the command may be run again. */
  unavailable: 6,
  /** The database refused to let this ddsctl in: wrong or missing password, unknown role or database, no CONNECT right. */
  loginRefused: 7,
  /** The database's schema is newer than this ddsctl's: upgrade ddsctl. */
  schemaTooNew: 8,
} as const;

/** The RFC 9457 problem body every error is written as. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: ProblemDetail[];
}

/** The base error: carries code, HTTP status and optional per-path problems. */
export class DdsError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: ProblemDetail[];
  /**
   * Seconds after which trying again may succeed (the server's `Retry-After`), set on
   * refusals that are temporary: the database unreachable, every connection busy, a rate
   * limit reached.
   */
  retryAfter?: number;

  constructor(code: ErrorCode, detail: string, errors?: ProblemDetail[]) {
    super(detail);
    this.name = "DdsError";
    this.code = code;
    this.status = STATUS[code];
    if (errors && errors.length > 0) this.errors = errors;
  }

  /** The exit code a CLI command ends with when this error stops it. */
  get exitCode(): number {
    if (this.status === 404) return ExitCode.notFound;
    if (this.code === "database_unavailable") return ExitCode.unavailable;
    if (this.code === "database_login_refused") return ExitCode.loginRefused;
    if (this.code === "schema_too_new") return ExitCode.schemaTooNew;
    if (this.code === "invalid_request" && this.usage) return ExitCode.usage;
    return ExitCode.failure;
  }

  /** Set on errors raised by CLI argument parsing so they exit 2. */
  usage = false;

  /** The problem+json body of this error. */
  toProblem(): Problem {
    const problem: Problem = {
      type: `https://ddsctl.dev/problems/${this.code.replace(/_/g, "-")}`,
      title: TITLE[this.status] ?? "Error",
      status: this.status,
      detail: this.message,
      code: this.code,
    };
    if (this.errors) problem.errors = this.errors;
    return problem;
  }

  /** Rebuilds an error from a problem body (the HTTP client uses this). */
  static fromProblem(problem: Problem): DdsError {
    const code = (problem.code in STATUS ? problem.code : "internal_error") as ErrorCode;
    return new DdsError(code, problem.detail || problem.title, problem.errors);
  }
}

/** Type guard for DdsError (also across module copies, by shape). */
export function isDdsError(value: unknown): value is DdsError {
  if (value instanceof DdsError) return true;
  // Another copy of this module (the bundled CLI loads the server and the studio from
  // dist/) makes errors of another class with the same shape and methods.
  const e = value as Partial<DdsError> | null;
  return value instanceof Error && e?.name === "DdsError" && typeof e.code === "string" && typeof e.toProblem === "function";
}

/** Factories, one per situation, so call sites read as sentences. */
export const errors = {
  invalid: (detail: string, problems?: ProblemDetail[]) =>
    new DdsError("invalid_request", detail, problems),
  usage: (detail: string) => {
    const e = new DdsError("invalid_request", detail);
    e.usage = true;
    return e;
  },
  notFound: (kind: string, id: string) => new DdsError("not_found", `${kind} ${id} not found`),
  nameTaken: (kind: string, name: string) =>
    new DdsError("name_taken", `a ${kind} named "${name}" already exists`),
  conflict: (
    code: "model_not_archived" | "model_has_records" | "context_not_archived" | "model_not_active" | "context_not_active" | "model_archived" | "webhook_disabled" | "idempotency_in_progress",
    detail: string,
  ) => new DdsError(code, detail),
  invalidTransition: (kind: string, from: string, to: string, hint?: string) =>
    new DdsError(
      "invalid_transition",
      `cannot move ${kind} from ${from} to ${to}${hint ? `: ${hint}` : ""}`,
    ),
  alreadyInState: (kind: string, state: string) =>
    new DdsError("invalid_transition", `${kind} is already ${state}`),
  validation: (detail: string, problems: ProblemDetail[]) =>
    new DdsError("validation_failed", detail, problems),
  compile: (detail: string, problems: ProblemDetail[]) =>
    new DdsError("compile_failed", detail, problems),
  /** The database cannot serve now (unreachable, read-only, every connection busy): retry after `retryAfter` s. */
  databaseUnavailable: (detail: string, retryAfter = 2) => {
    const e = new DdsError("database_unavailable", detail);
    e.retryAfter = retryAfter;
    return e;
  },
  /**
   * A request over its workspace's or token's rate limit: retry after `retryAfter` s;
   * undefined when the request costs more than the limit ever allows at once.
   */
  rateLimited: (detail: string, retryAfter?: number) => {
    const e = new DdsError("rate_limited", detail);
    if (retryAfter !== undefined) e.retryAfter = retryAfter;
    return e;
  },
  /** The database (at `location`) refused the login; `detail` says why, from the server. */
  loginRefused: (location: string, detail: string) => new DdsError("database_login_refused", `cannot log in to database ${location}: ${detail}`),
  /** A database written by a newer ddsctl, whose schema this one cannot run on. */
  schemaTooNew: (location: string, version: number, known: number) =>
    new DdsError("schema_too_new", `database ${location} has schema version ${version}, newer than this ddsctl supports (${known}); upgrade ddsctl`),
  notImplemented: (what: string, issue: string) =>
    new DdsError("not_implemented", `${what} is not implemented yet (arrives with ${issue})`),
};
