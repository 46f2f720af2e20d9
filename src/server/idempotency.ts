import type { Context, MiddlewareHandler } from "hono";
import { errors } from "../contract/errors.js";
import { IDEMPOTENCY_TTL_MS, type SecretBox, type IdempotencyRepo, type MarkOwner, type StoredResponse } from "../engine/index.js";
import type { ServerEnv } from "./types.js";

/** Idempotency timing (docs/rest-api.md and the interface's Limits). */
export interface IdempotencyOptions {
  /** How long a key is kept (default 24 h). */
  ttlMs?: number;
  /**
   * When a `running` key whose process cannot be told alive or dead counts as abandoned
   * (default 60 s). A key whose process is known dead is taken over at once.
   */
  abandonMs?: number;
}

/** How one route keeps its keys. */
export interface IdempotencyRouteOptions {
  /** The engine stores the answer itself (keyed bulk writes take the key). */
  engineStores?: boolean;
  /** This process, marked on the keys it runs, and the liveness check of other marks. */
  owner?: MarkOwner;
  /** The route's answer carries a secret: its replay copy is stored encrypted. */
  box?: SecretBox;
}

const MAX_KEY_LENGTH = 255;

function replay(c: Context<ServerEnv>, stored: StoredResponse, box: SecretBox | undefined): Response {
  const headers: Record<string, string> = { ...stored.headers, "Idempotent-Replayed": "true" };
  // Rows finished by the engine itself (keyed bulk writes) store no headers.
  if (stored.body !== null && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["Content-Type"] = "application/json";
  // Any stored body may be sealed (the route's answer carried a secret); open is a no-op otherwise.
  const body = stored.body !== null && box ? box.open(stored.body, "replay-body") : stored.body;
  // Made from the context, so it carries what the chain set before (the rate limit's headers).
  return c.newResponse(body, { status: stored.status as 200, headers });
}

async function snapshot(c: Context<ServerEnv>): Promise<StoredResponse> {
  const res = c.res;
  const headers: Record<string, string> = {};
  for (const name of ["Location", "Content-Type"]) {
    const value = res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { status: res.status, headers, body: res.status === 204 ? null : await res.clone().text() };
}

/**
 * The Idempotency-Key rules of docs/rest-api.md for write requests: the first request with a
 * key runs and its status, body and Location are kept for 24 h; a repeat (whatever its
 * body) gets that response again with `Idempotent-Replayed: true`; a repeat while the
 * first still runs is 409; a 5xx is not kept, so a retry runs again. With `engineStores`
 * (routes whose engine call takes the key), a success is left as the engine stored it.
 */
export function idempotency(repo: IdempotencyRepo, options: IdempotencyOptions = {}, route: IdempotencyRouteOptions = {}): MiddlewareHandler<ServerEnv> {
  const { engineStores = false, owner, box } = route;
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const abandonMs = options.abandonMs ?? 60_000;
  return async (c, next) => {
    const key = c.req.header("idempotency-key");
    if (key === undefined) return next();
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw errors.invalid(`Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`);
    const workspace = c.get("principal").workspace;
    const begun = await repo.begin(workspace, key, { now: Date.now(), ttlMs, abandonMs }, owner);
    if (begun.kind === "replay") {
      const { response } = begun;
      // A row the engine stored in a compact form (its answer_form names it): the engine rebuilds the answer.
      if (begun.answerForm !== null && response.body !== null) return replay(c, { ...response, body: await c.get("engine").expandReplay(begun.answerForm, response.body) }, box);
      return replay(c, response, box);
    }
    if (begun.kind === "running") {
      throw errors.conflict("idempotency_in_progress", `a request with Idempotency-Key "${key}" is still being processed; retry shortly`);
    }
    const { claim } = begun;
    try {
      await next();
    } catch (err) {
      await claim.release();
      throw err;
    }
    if (c.res.status >= 500) await claim.release();
    // Keyed bulk writes: the engine already stored this very answer in the batch's own
    // transaction; storing it again would only copy ~50 KB per request.
    else if (engineStores && c.res.status < 300) await claim.done();
    else await claim.finish(await snapshot(c), box && ((body) => box.seal(body, "replay-body")));
  };
}
