import { hostname } from "node:os";
import pino from "pino";
import { accessLine, type AccessEntry } from "./access-log.js";
import type { LogFn } from "./types.js";

/** How `serve` writes its log: today's compact lines, or one pino JSON object per line. */
export type LogFormat = "plain" | "json";

/** The log formats, for the CLI's choices. */
export const LOG_FORMATS: readonly LogFormat[] = ["plain", "json"];

/** Severity of an event line. */
export type EventLevel = "info" | "warn" | "error";

/** Where the server's lines go: requests, refusals on the socket, and events. */
export interface ServerLogger {
  /** False under `quiet`: a successful request writes nothing, so callers may skip building its entry. */
  readonly requests: boolean;
  /** One line per request; under `quiet` only a 5xx (with its cause) is written. */
  request(entry: AccessEntry): void;
  /** A request Node's parser or the server refused before routing (silenced by `quiet` like requests). */
  refused(fields: { status: number; code: string; requestId: string }): void;
  /**
   * One line per event (start, stop, take-over, migration, a background failure); never
   * silenced. `message` is the JSON line's `msg` (default: the event's name).
   */
  event(name: string, fields?: Record<string, unknown>, level?: EventLevel, message?: string): void;
}

/** Options of {@link createServerLogger}. */
export interface ServerLoggerOptions {
  format?: LogFormat;
  /** Receives each line without its newline (the CLI's output module, a test's array). */
  write: LogFn;
  /** Silences request and refusal lines (a 5xx is still written). */
  quiet?: boolean;
}

/** A URL's password and a bearer token, wherever they appear in a message. */
const SECRETS: [RegExp, string][] = [
  [/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]+@/gi, "$1:***@"],
  [/\bBearer\s+[^\s",]+/gi, "Bearer ***"],
];

/** Removes URL passwords and bearer tokens from a text (error messages may quote either). */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRETS) out = out.replace(pattern, replacement);
  return out;
}

/** Event fields with every string scrubbed. */
function scrubbed(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = typeof v === "string" ? scrubSecrets(v) : v;
  return out;
}

/** A line written even under --quiet, at level error: a failure of the server (a 5xx with its cause). */
const written = (e: AccessEntry) => !e.aborted && e.status >= 500 && e.error !== undefined;

/**
 * The server's logger. `plain` (the default) writes the lines `serve` always wrote: a compact
 * JSON access line per request and `{time, event, ...}` per event. `json` writes one pino
 * object per line with stable fields (`level`, `time`, `pid`, `hostname`, `msg`; per request
 * `requestId`, `method`, `path`, `route`, `status`, `durationMs`, `workspace`), for a log
 * shipper. Neither ever holds a token, a header or a body; messages have URL passwords and
 * bearer tokens scrubbed, and pino redacts the usual secret keys should one slip in.
 */
export function createServerLogger(options: ServerLoggerOptions): ServerLogger {
  const { write, quiet = false } = options;
  if (options.format !== "json") {
    return {
      requests: !quiet,
      request: (e) => (quiet && !written(e) ? undefined : write(accessLine(e.error ? { ...e, error: scrubSecrets(e.error) } : e))),
      refused: (f) => (quiet ? undefined : write(JSON.stringify({ time: new Date().toISOString(), event: "client_error", ...f }))),
      event: (name, fields = {}) => write(JSON.stringify({ time: new Date().toISOString(), event: name, ...scrubbed(fields) })),
    };
  }
  const log = pino(
    {
      base: { pid: process.pid, hostname: hostname() },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: ["authorization", "token", "secret", "password", "headers.authorization", "headers.cookie"], censor: "[redacted]" },
    },
    { write: (line: string) => write(line.endsWith("\n") ? line.slice(0, -1) : line) },
  );
  return {
    requests: !quiet,
    request(e) {
      if (quiet && !written(e)) return;
      const entry: Record<string, unknown> = { requestId: e.requestId, method: e.method, path: e.path, route: e.route ?? null };
      if (e.aborted) entry.aborted = true;
      else entry.status = e.status;
      entry.durationMs = Math.round((performance.now() - e.started) * 10) / 10;
      if (e.workspace) entry.workspace = e.workspace;
      if (e.error) entry.error = scrubSecrets(e.error);
      if (written(e)) log.error(entry, "request");
      else log.info(entry, "request");
    },
    refused: (f) => (quiet ? undefined : log.info({ event: "client_error", ...f }, "client_error")),
    event: (name, fields = {}, level = "info", message = name) => log[level]({ event: name, ...scrubbed(fields) }, scrubSecrets(message)),
  };
}
