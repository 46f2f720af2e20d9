/**
 * The studio's local authentication. Each studio process makes one random session key and
 * gives it to the page through the URL it prints (in the fragment, which browsers never
 * send to a server or put in a Referer); the page sends it as a bearer token. No token is
 * ever written to the user's database: the studio's own authenticator accepts the key as
 * the admin of the local workspace, and the REST app is built with that authenticator.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Authenticator, Principal } from "../engine/index.js";

/** The per-process session key (base64url, 256 bits). */
export function newSessionKey(): string {
  return randomBytes(32).toString("base64url");
}

/** True when `presented` is the session key (constant-time, whatever the length). */
export function isSessionKey(key: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(key);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The principal the session key stands for: the workspace's admin, as the local CLI acts. */
export function sessionPrincipal(workspace: string): Principal {
  return { tokenId: "studio-session", workspace, scopes: ["admin"] };
}

/**
 * An authenticator that knows the session key only: the REST app checks scopes and picks
 * the engine exactly as it does for stored tokens.
 */
export function createSessionAuthenticator(key: string, workspace: string): Authenticator {
  const verdict = (token: string) => (isSessionKey(key, token) ? sessionPrincipal(workspace) : undefined);
  return {
    cached: (token: string) => verdict(token) ?? null,
    authenticate: async (token: string) => verdict(token),
  };
}
