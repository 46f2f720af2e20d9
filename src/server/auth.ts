import type { MiddlewareHandler } from "hono";
import { DdsError } from "../contract/errors.js";
import type { RouteSpec } from "../contract/routes.js";
import { hasScope, type Authenticator, type Principal } from "../engine/index.js";
import type { Engines, ServerEnv } from "./types.js";

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The token of an `Authorization: Bearer <token>` header; undefined for any other form. */
export function bearerToken(header: string): string | undefined {
  return BEARER.exec(header)?.[1];
}

/**
 * Whether a request may call a route: its token's principal, or why not: no token or an
 * unknown or revoked one (401), or a token without the route's scope (403).
 */
export type Admission =
  | { principal: Principal; refused?: undefined }
  | { refused: "missing"; principal?: undefined }
  | { refused: "invalid"; principal?: undefined }
  | { refused: "expired"; expiredAt: string; principal?: undefined }
  | { refused: "scope"; principal: Principal };

/** Why a request's token was refused: none sent, unknown or revoked, expired (401), or lacking the route's scope (403). */
export type AuthRefusal = NonNullable<Admission["refused"]>;

/** Every refusal, for the metrics (each counted from zero). */
export const AUTH_REFUSALS: readonly AuthRefusal[] = ["missing", "invalid", "expired", "scope"];

/**
 * The one admission rule of the API, used by the app's middleware and by the read lane:
 * who may call `route` with this Authorization header. Synchronous when the authenticator
 * remembers the token under `stamp` (the lane's cached reads).
 */
export function admit(route: RouteSpec, auth: Authenticator, header: string | undefined, stamp?: string): Admission | Promise<Admission> {
  if (!header) return { refused: "missing" };
  const token = bearerToken(header);
  if (token === undefined) return { refused: "invalid" };
  const decide = (principal: Principal | null | undefined): Admission => {
    if (!principal) {
      const expiredAt = auth.expiredAt?.(token);
      return expiredAt ? { refused: "expired", expiredAt } : { refused: "invalid" };
    }
    return hasScope(principal.scopes, route.scope) ? { principal } : { refused: "scope", principal };
  };
  const known = stamp === undefined ? undefined : auth.cached(token, stamp);
  return known !== undefined ? decide(known) : auth.authenticate(token, stamp).then(decide);
}

/**
 * Bearer authentication and the scope check of one route (docs/rest-api.md): missing, invalid
 * or revoked tokens are 401 (the error handler adds `WWW-Authenticate`), a token without
 * the route's scope is 403. On success the request gets its token's workspace engine, so
 * every other workspace's resources are simply not found.
 */
export function requireToken(route: RouteSpec, auth: Authenticator, engines: Engines, onRefused?: (reason: AuthRefusal) => void): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const admission = await admit(route, auth, c.req.header("authorization"));
    if (admission.refused !== undefined) onRefused?.(admission.refused);
    if (admission.refused === "missing") throw new DdsError("unauthorized", "missing API token: send the header Authorization: Bearer <token>");
    if (admission.refused === "invalid") throw new DdsError("unauthorized", "invalid or revoked API token");
    if (admission.refused === "expired") throw new DdsError("unauthorized", `the API token expired at ${admission.expiredAt}; make a new one with ddsctl tokens create (and revoke this one)`);
    if (admission.refused === "scope") {
      throw new DdsError("forbidden", `${route.method} ${route.path} needs a token with the ${route.scope} scope; this token has ${admission.principal.scopes.join(", ")}`);
    }
    const { principal } = admission;
    c.set("principal", principal);
    c.set("engine", engines.get(principal));
    await next();
  };
}
