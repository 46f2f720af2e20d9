import type { IncomingMessage } from "node:http";
import type { MiddlewareHandler } from "hono";
import { DdsError, errors } from "../contract/errors.js";
import { assertJsonValue } from "../contract/json-limits.js";
import type { RouteSpec } from "../contract/routes.js";
import { MAX_BODY_BYTES } from "../contract/schemas/index.js";
import type { ServerEnv } from "./types.js";

const MB = MAX_BODY_BYTES / (1024 * 1024);

/**
 * The client went away (or was cut off by the request time-out) before its body was read:
 * nobody is left to answer, and it is no failure of the server (logged as aborted).
 */
export class ClientAbortedError extends Error {
  constructor() {
    super("the client closed the connection before the request body was read");
    this.name = "ClientAbortedError";
  }
}

function tooLarge(route: RouteSpec): DdsError {
  return route.bulk
    ? new DdsError("bulk_limit_exceeded", `a bulk request body may be at most ${MB} MB; send fewer or smaller items`)
    : new DdsError("payload_too_large", `the request body exceeds ${MB} MB`);
}

/**
 * Reads the request body as text within the 10 MB limit (docs/rest-api.md): a declared
 * Content-Length over the limit is refused before reading anything, and a streamed body
 * is counted as it arrives and abandoned as soon as it passes the limit, so an oversized
 * upload is never buffered whole. Over the limit: 413, or 400 bulk_limit_exceeded on bulk
 * routes (the interface makes that a 400).
 */
export function readBody(route: RouteSpec, limit = MAX_BODY_BYTES): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    c.set("bodyText", "");
    // Check the method before touching `c.req.raw`: reading it makes the Node adapter build
    // a full WHATWG Request (with an AbortSignal) for every request, GETs included.
    if (route.method === "GET") return next();
    // A client that left while the request waited (on a slow database, say) left a request
    // the Node adapter discards unread: read now, it would look like an empty body, and its
    // 400 would be kept under the request's Idempotency-Key and replayed to the retry.
    const gone = () => c.env?.outgoing?.destroyed === true;
    if (gone()) throw new ClientAbortedError();
    const declared = c.req.header("content-length");
    if (declared !== undefined && Number(declared) > limit) throw tooLarge(route);
    // Served by node:http, the body is read from the Node request itself: the WHATWG
    // Request and its web stream cost more per bulk request than parsing its JSON.
    const incoming = c.env?.incoming;
    const chunks = incoming ? await readNode(incoming, limit, route) : await readWeb(c.req.raw.body, limit, route);
    if (!chunks) return next();
    const size = chunks.reduce((n, b) => n + b.byteLength, 0);
    if (gone() || (declared !== undefined && size !== Number(declared))) throw new ClientAbortedError();
    try {
      c.set("bodyText", new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)));
    } catch {
      throw errors.invalid("the request body is not valid UTF-8");
    }
    await next();
  };
}

/** The body's chunks from a web stream (under `app.request`); undefined without a body. */
async function readWeb(stream: ReadableStream<Uint8Array> | null, limit: number, route: RouteSpec): Promise<Uint8Array[] | undefined> {
  if (!stream) return undefined;
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch {
      // The only way reading the incoming stream fails: its connection is gone.
      throw new ClientAbortedError();
    }
    const { done, value } = chunk;
    if (done) return chunks;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(route);
    }
    chunks.push(value);
  }
}

/** The body's chunks from the Node request, abandoned as soon as it passes the limit. */
async function readNode(incoming: IncomingMessage, limit: number, route: RouteSpec): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of incoming as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      // Leaving the loop stops the reading: the rest of an oversized upload is never buffered.
      if (size > limit) throw tooLarge(route);
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof DdsError) throw err;
    // The only way reading the incoming request fails: its connection is gone.
    throw new ClientAbortedError();
  }
  return chunks;
}

/**
 * Parses the body text: empty is "no body" (undefined); malformed JSON is a 400. The JSON
 * limits (depth, forbidden keys, numbers JSON cannot carry) are checked at once, before
 * anything else walks the value: 422 `validation_failed` with the path.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    throw errors.invalid(`malformed JSON in the request body: ${(err as Error).message}`);
  }
  assertJsonValue(value);
  return value;
}
