import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { requestCost } from "../../contract/rate-limit.js";
import type { RouteSpec } from "../../contract/routes.js";
import { parseJsonBody } from "../body.js";
import { errorResponse } from "../problem.js";
import type { ServerEnv } from "../types.js";
import type { RateLimiter } from "./limiter.js";

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
type Charged = IncomingMessage & { [CHARGED]?: Record<string, string> };

/**
 * Records that the read lane charged `req` (with these headers): a read the lane gives up
 * on is answered by the app, which must not charge it a second time.
 */
export function markCharged(req: IncomingMessage, headers: Record<string, string>): void {
  (req as Charged)[CHARGED] = headers;
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
    if (charged) {
      await next();
      for (const [name, value] of Object.entries(charged)) c.res.headers.set(name, value);
      return;
    }
    const cost = requestCost(route.method, route.bulk ? bulkItems(c) : undefined);
    const checked = limiter.check(c.get("principal"), cost);
    const verdict = checked instanceof Promise ? await checked : checked;
    if (!verdict) return next();
    if (!verdict.admitted) {
      const res = errorResponse(c, verdict.error);
      for (const [name, value] of Object.entries(verdict.headers)) res.headers.set(name, value);
      return res;
    }
    await next();
    for (const [name, value] of Object.entries(verdict.headers)) c.res.headers.set(name, value);
  };
}
