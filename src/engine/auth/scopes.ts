import { errors } from "../../contract/errors.js";
import type { TokenScope } from "../../contract/routes.js";

/** Scopes from weakest to strongest: each implies the ones before it (docs/rest-api.md). */
export const SCOPES: readonly TokenScope[] = ["read", "write", "admin"];

const RANK: Record<TokenScope, number> = { read: 1, write: 2, admin: 3 };

/** True when a token holding `granted` may do what needs `needed`. */
export function hasScope(granted: readonly string[], needed: TokenScope): boolean {
  return granted.some((s) => (RANK[s as TokenScope] ?? 0) >= RANK[needed]);
}

/** Parses a scope spelling (case-insensitive), or throws a usage error naming the choices. */
export function parseScope(value: string): TokenScope {
  const normal = value.trim().toLowerCase();
  if (!(SCOPES as readonly string[]).includes(normal)) {
    throw errors.usage(`unknown scope "${value}"; use one of ${SCOPES.join(", ")}`);
  }
  return normal as TokenScope;
}
