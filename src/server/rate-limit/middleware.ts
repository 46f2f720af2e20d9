import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { requestCost } from "../../contract/rate-limit.js";
import type { RouteSpec } from "../../contract/routes.js";
import { parseJsonBody } from "../body.js";
import { errorResponse } from "../problem.js";
import type { ServerEnv } from "../types.js";
import type { RateLimiter, Verdict } from "./limiter.js";

/**
 * The items of a bulk body, parsed once here for its cost and handed on to the handler
 * (parsing a 100-item body twice would cost more than the limit). A body that does not
 * parse costs as a write and is refused by the handler as it would be without a limit.
 */
function bulkItems(c: Context<ServerEnv>): number | undefined {
  let value: unknown;
  try {
    value = parseJsonBody(c.get("bodyText"));
  } catch {
    return undefined;
  }
  c.set("parsedBody", { value });
  const items = (value as { items?: unknown } | undefined)?.items;
  return Array.isArray(items) ? items.length : undefined;
}

const CHARGED = Symbol("ddsctl.rateCharged");
type Charged = IncomingMessage & { [CHARGED]?: Verdict };

/**
 * Records the read lane's verdict on `req`: a read the lane refused or gave up on is
 * answered by the app, which must neither charge it a second time nor count its refusal twice.
 */
export function markCharged(req: IncomingMessage, verdict: Verdict): void {
  (req as Charged)[CHARGED] = verdict;
}

/**
 * Rate limiting of one route, after authentication and the body's read and before the
 * Idempotency-Key: a refused request is answered 429 with nothing applied and its key not
 * recorded, so the same key may be sent again. Every answer to a request it charged
 * carries `RateLimit-Policy` and `RateLimit` (the refusals and the route's errors too).
 */
export function rateLimit(route: RouteSpec, limiter: RateLimiter): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const charged = (c.env?.incoming as Charged | undefined)?.[CHARGED];
    let verdict: Verdict | undefined = charged;
    if (!verdict) {
      const cost = requestCost(route.method, route.bulk ? bulkItems(c) : undefined);
      const checked = limiter.check(c.get("principal"), cost);
      verdict = checked instanceof Promise ? await checked : checked;
    }
    if (!verdict) return next();
    // Set before the answer is made, so every answer made from the context carries them
    // (errors too); a response made elsewhere (a replay) gets them below.
    for (const [name, value] of Object.entries(verdict.headers)) c.header(name, value);
    if (!verdict.admitted) return errorResponse(c, verdict.error);
    await next();
    if (!c.res.headers.has("ratelimit")) for (const [name, value] of Object.entries(verdict.headers)) c.res.headers.set(name, value);
  };
}
