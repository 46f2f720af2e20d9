import type { MiddlewareHandler } from "hono";
import { DdsError } from "../contract/errors.js";
import type { RouteSpec } from "../contract/routes.js";
import { hasScope, type Authenticator } from "../engine/index.js";
import type { Engines, ServerEnv } from "./types.js";

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The token of an `Authorization: Bearer <token>` header; undefined for any other form. */
export function bearerToken(header: string): string | undefined {
  return BEARER.exec(header)?.[1];
}

/**
 * Bearer authentication and the scope check of one route (docs/rest-api.md): missing, invalid
 * or revoked tokens are 401 (the error handler adds `WWW-Authenticate`), a token without
 * the route's scope is 403. On success the request gets its token's workspace engine, so
 * every other workspace's resources are simply not found.
 */
export function requireToken(route: RouteSpec, auth: Authenticator, engines: Engines): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    if (!header) throw new DdsError("unauthorized", "missing API token: send the header Authorization: Bearer <token>");
    const token = bearerToken(header);
    const principal = token ? await auth.authenticate(token) : undefined;
    if (!principal) throw new DdsError("unauthorized", "invalid or revoked API token");
    if (!hasScope(principal.scopes, route.scope)) {
      throw new DdsError(
        "forbidden",
        `${route.method} ${route.path} needs a token with the ${route.scope} scope; this token has ${principal.scopes.join(", ")}`,
      );
    }
    c.set("principal", principal);
    c.set("engine", engines.get(principal));
    await next();
  };
}
