import { errors } from "../../contract/errors.js";
import type { TokenScope } from "../../contract/routes.js";
import { newId } from "../../util/ids.js";
import { nowIso } from "../../util/time.js";
import { ensureWorkspace, type Store } from "../store/store.js";
import { StampedCache } from "../store/stamped-cache.js";
import { createTokenRepo, type TokenRow } from "../store/token-repo.js";
import { parseScope } from "./scopes.js";
import { generateToken, hashToken, looksLikeToken } from "./token-secret.js";
import { checkWorkspaceName } from "../../contract/workspace.js";

/** What `tokens create` asks for. */
export interface IssueTokenOptions {
  workspace: string;
  scopes: readonly string[];
  name?: string;
}

/** A newly issued token: the only time the secret is ever visible. */
export interface IssuedToken {
  tokenId: string;
  token: string;
  workspace: string;
  scopes: TokenScope[];
}

/** A token as listings show it: never the secret, never its hash. */
export interface TokenInfo {
  tokenId: string;
  name: string | null;
  workspace: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** The identity a valid bearer token grants. */
export interface Principal {
  tokenId: string;
  workspace: string;
  scopes: string[];
}

const info = (r: TokenRow): TokenInfo => ({
  tokenId: r.id,
  name: r.name,
  workspace: r.workspace,
  scopes: r.scopes,
  createdAt: r.createdAt,
  lastUsedAt: r.lastUsedAt,
  revokedAt: r.revokedAt,
});

/** Issues a token for a workspace (created if new); stores only the token's SHA-256. */
export async function issueToken(store: Store, options: IssueTokenOptions): Promise<IssuedToken> {
  checkWorkspaceName(options.workspace);
  if (options.scopes.length === 0) throw errors.usage("a token needs a scope: read, write or admin");
  const scopes = [...new Set(options.scopes.map(parseScope))];
  const token = generateToken();
  const tokenId = newId();
  await store.sql.tx(async (tx) => {
    await ensureWorkspace(tx, options.workspace);
    await createTokenRepo(tx).insert({ id: tokenId, workspace: options.workspace, name: options.name ?? null, scopes, createdAt: nowIso() }, hashToken(token));
  });
  return { tokenId, token, workspace: options.workspace, scopes };
}

/** Lists tokens (optionally of one workspace), without secrets. */
export async function listTokens(store: Store, workspace?: string): Promise<TokenInfo[]> {
  return (await createTokenRepo(store.sql).list(workspace)).map(info);
}

/** Revokes a token at once (every later request with it is 401); 404 when unknown. */
export async function revokeToken(store: Store, tokenId: string): Promise<TokenInfo> {
  const repo = createTokenRepo(store.sql);
  if (!(await repo.revoke(tokenId.toLowerCase(), nowIso()))) throw errors.notFound("token", tokenId);
  return info((await repo.get(tokenId.toLowerCase()))!);
}

/** How often a token's `lastUsedAt` is written at most: a write per request would contend. */
const TOUCH_EVERY_MS = 60_000;

/** Verdicts remembered at most (a flood of made-up tokens cannot grow the cache without bound). */
const MAX_CACHED = 10_000;

/**
 * Checks bearer tokens against the store. Verdicts are remembered only while the database
 * is unchanged (Store.changeStamp: nothing written through this process, nothing committed
 * by another process or, on PostgreSQL, another node), so a revocation, even by `ddsctl
 * tokens revoke` elsewhere, takes effect on the next request after it is noticed. They
 * are remembered by the token as presented: a repeated request then skips the SHA-256,
 * which was the largest cost of answering a small cached read. That memory is the
 * process's own, bounded, and dropped at every change; the database holds hashes only and
 * nothing logs a token.
 */
export function createAuthenticator(store: Store, options: { onError?: (err: unknown) => void } = {}): Authenticator {
  const repo = createTokenRepo(store.sql);
  const touched = new Map<string, number>();
  const cache = new StampedCache<Principal | null>(MAX_CACHED);
  /** Records that a token was used (its `lastUsedAt`, written at most every TOUCH_EVERY_MS). */
  const used = (principal: Principal): void => {
    const t = Date.now();
    if (t - (touched.get(principal.tokenId) ?? 0) > TOUCH_EVERY_MS) {
      touched.set(principal.tokenId, t);
      // Bookkeeping only: a failed write must not fail the request it rides on.
      repo.touch(principal.tokenId, new Date(t).toISOString()).catch((err: unknown) => options.onError?.(err));
    }
  };
  const admit = (principal: Principal | null): Principal | undefined => {
    if (!principal) return undefined;
    used(principal);
    return { ...principal, scopes: [...principal.scopes] };
  };
  return {
    /**
     * Records a use of a principal this authenticator granted (the read lane answering a
     * request it answered before for the same token, without asking again).
     */
    used,
    /**
     * The remembered verdict of a token under `stamp`: a principal, null for a refused
     * token, undefined when not remembered (then call `authenticate`). Synchronous, for
     * the read lane's hot path.
     */
    cached(token: string, stamp: string): Principal | null | undefined {
      if (!looksLikeToken(token)) return null;
      const principal = cache.get(stamp, token);
      return principal === undefined ? undefined : (admit(principal) ?? null);
    },
    /**
     * The principal of a valid, unrevoked token, or undefined. `stamp` is the store's
     * change stamp when the caller has just read it.
     */
    async authenticate(token: string, stamp?: string): Promise<Principal | undefined> {
      if (!looksLikeToken(token)) return undefined;
      const now = stamp ?? store.changeStamp();
      let principal = cache.get(now, token);
      if (principal === undefined) {
        const row = await repo.findByHash(hashToken(token));
        principal = row && !row.revokedAt ? { tokenId: row.id, workspace: row.workspace, scopes: row.scopes } : null;
        cache.set(now, token, principal);
      }
      return admit(principal);
    },
  };
}

/** What checks bearer tokens (see createAuthenticator). */
export interface Authenticator {
  /** The remembered verdict of a token under `stamp`: a principal, null for a refused token, undefined when not remembered. */
  cached(token: string, stamp: string): Principal | null | undefined;
  /** The principal of a valid, unrevoked token, or undefined. */
  authenticate(token: string, stamp?: string): Promise<Principal | undefined>;
  /** Records a use of a principal it granted, when a caller answers without asking again (absent: nothing to record). */
  used?(principal: Principal): void;
}
