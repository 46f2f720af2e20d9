/**
 * `/v1` of a remote service, proxied: the page sends its session key, the proxy sends the
 * profile's token instead, so the page never holds a long-lived token and needs no CORS.
 * Bodies stream both ways (nothing is buffered), status and the headers a client reads
 * (Location, Idempotent-Replayed, Allow, X-Request-Id…) are passed on.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { DdsError, errors } from "../contract/errors.js";
import { normalizeBaseUrl } from "../client/base-url.js";
import { replyProblem } from "./problem-reply.js";
import { isSessionKey } from "./session.js";
import type { ApiBackend } from "./types.js";

/** Request headers passed to the service (everything else, Authorization first, is dropped). */
const FORWARD = ["accept", "content-type", "content-length", "idempotency-key", "x-request-id"];
/** Response headers passed back to the page. */
const RETURN = ["content-type", "location", "x-request-id", "idempotent-replayed", "allow", "retry-after", "ratelimit-policy", "ratelimit"];

/** Options of {@link createRemoteProxy}. */
export interface RemoteProxyOptions {
  baseUrl: string;
  token: string | undefined;
  sessionKey: string;
}

function bearer(req: IncomingMessage): string | undefined {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? "")?.[1];
}

/** The proxy to `baseUrl` (with or without `/v1`). */
export function createRemoteProxy(options: RemoteProxyOptions): ApiBackend {
  if (!options.token) {
    throw errors.usage(`remote mode (${options.baseUrl}) needs an API token: pass --token <token> or set DDS_API_TOKEN (the operator creates one with ddsctl tokens create)`);
  }
  const base = normalizeBaseUrl(options.baseUrl);
  const token = options.token;
  const inFlight = new Set<AbortController>();

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isSessionKey(options.sessionKey, bearer(req))) {
      return replyProblem(res, new DdsError("unauthorized", "missing or wrong studio session key: open the URL ddsctl studio printed"));
    }
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    for (const name of FORWARD) {
      const value = req.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const abort = new AbortController();
    inFlight.add(abort);
    try {
      const answer = await fetch(`${base}${(req.url ?? "/").slice("/v1".length)}`, {
        method: req.method,
        headers,
        body: hasBody ? (Readable.toWeb(req) as unknown as RequestInit["body"]) : undefined,
        // Node's fetch needs this to stream a request body.
        ...(hasBody ? { duplex: "half" } : {}),
        redirect: "manual",
        signal: abort.signal,
      } as RequestInit);
      const out: Record<string, string> = {};
      for (const name of RETURN) {
        const value = answer.headers.get(name);
        if (value !== null) out[name] = value;
      }
      res.writeHead(answer.status, out);
      if (answer.body) await pipeline(Readable.fromWeb(answer.body as WebReadableStream), res);
      else res.end();
    } catch (err) {
      if (res.headersSent) return void res.destroy();
      const detail = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      replyProblem(res, new DdsError("unavailable", `cannot reach ${base}: ${detail}`));
    } finally {
      inFlight.delete(abort);
    }
  }

  return {
    describe: `remote ${base}`,
    handle: (req, res) => void forward(req, res),
    async close() {
      for (const a of inFlight) a.abort();
    },
  };
}
