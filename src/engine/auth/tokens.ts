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
import { formatRateSpec, parseRateSpec } from "../../contract/rate-limit.js";

/** What `tokens create` asks for. */
export interface IssueTokenOptions {
  workspace: string;
  scopes: readonly string[];
  name?: string;
  /** The token's own rate limit (`1000/min`, `off`); absent: the server's default. */
  rate?: string;
  /** When the token stops working (ISO 8601); absent: never. */
  expiresAt?: string;
}

/** A newly issued token: the only time the secret is ever visible. */
export interface IssuedToken {
  tokenId: string;
  token: string;
  workspace: string;
  scopes: TokenScope[];
  /** The token's own rate limit, when it was given one (absent: the server's default). */
  rateLimit?: string;
  /** When it stops working; absent: never (the answer of a token without expiry is as before). */
  expiresAt?: string;
}

/** What issuing a token did besides: whether its workspace was made for it (nothing was in it before). */
export interface IssueOutcome {
  issued: IssuedToken;
  workspaceCreated: boolean;
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
  /** The token's own rate limit; null: the server's default. */
  rateLimit: string | null;
  /** When it stops (or stopped) working; null: never. */
  expiresAt: string | null;
}

/** The identity a valid bearer token grants. */
export interface Principal {
  tokenId: string;
  workspace: string;
  scopes: string[];
  /** The token's own rate limit as stored (`1000/min`, `off`); null or absent: the server's default. */
  tokenRate?: string | null;
  /** Its workspace's own rate limit as stored; null or absent: the server's default. */
  workspaceRate?: string | null;
  /** When the token stops working (epoch ms); absent: never. A remembered verdict is checked against it at each use. */
  expiresAtMs?: number;
}

const info = (r: TokenRow): TokenInfo => ({
  tokenId: r.id,
  name: r.name,
  workspace: r.workspace,
  scopes: r.scopes,
  createdAt: r.createdAt,
  lastUsedAt: r.lastUsedAt,
  revokedAt: r.revokedAt,
  rateLimit: r.rateLimit,
  expiresAt: r.expiresAt,
});

/** A rate limit as stored: checked (a usage error naming `source`), written the one way; null stays null (the default). */
function storedRate(text: string | null | undefined, source: string): string | null {
  return text === null || text === undefined ? null : formatRateSpec(parseRateSpec(text, source));
}

/** Issues a token for a workspace (created if new); stores only the token's SHA-256. */
export async function issueToken(store: Store, options: IssueTokenOptions): Promise<IssuedToken> {
  return (await issueTokenReporting(store, options)).issued;
}

/** {@link issueToken}, saying also whether the workspace was created for the token (`tokens create` warns: a typo makes a new, empty one). */
export async function issueTokenReporting(store: Store, options: IssueTokenOptions): Promise<IssueOutcome> {
  checkWorkspaceName(options.workspace);
  if (options.scopes.length === 0) throw errors.usage("a token needs a scope: read, write or admin");
  const scopes = [...new Set(options.scopes.map(parseScope))];
  const rateLimit = storedRate(options.rate, "--rate");
  const expiresAt = options.expiresAt ?? null;
  if (expiresAt !== null && !(Date.parse(expiresAt) > Date.now())) throw errors.usage(`a token's expiry must be in the future, got ${expiresAt}`);
  const token = generateToken();
  const tokenId = newId();
  const workspaceCreated = await store.sql.tx(async (tx) => {
    const created = await ensureWorkspace(tx, options.workspace);
    await createTokenRepo(tx).insert({ id: tokenId, workspace: options.workspace, name: options.name ?? null, scopes, createdAt: nowIso(), rateLimit, expiresAt }, hashToken(token));
    return created;
  });
  return {
    issued: { tokenId, token, workspace: options.workspace, scopes, ...(rateLimit !== null && { rateLimit }), ...(expiresAt ? { expiresAt } : {}) },
    workspaceCreated,
  };
}

/** Sets a token's own rate limit (`text`; null: back to the server's default); 404 when unknown. */
export async function setTokenRate(store: Store, tokenId: string, text: string | null): Promise<TokenInfo> {
  const repo = createTokenRepo(store.sql);
  if (!(await repo.setRateLimit(tokenId.toLowerCase(), storedRate(text, "the rate")))) throw errors.notFound("token", tokenId);
  return info((await repo.get(tokenId.toLowerCase()))!);
}

/** A workspace's own rate limit (null: the server's default). */
export interface WorkspaceRate {
  workspace: string;
  rateLimit: string | null;
}

/** Sets a workspace's own rate limit (`text`; null: back to the server's default); the workspace is created if new. */
export async function setWorkspaceRate(store: Store, workspace: string, text: string | null): Promise<WorkspaceRate> {
  checkWorkspaceName(workspace);
  const rateLimit = storedRate(text, "the rate");
  await store.sql.tx(async (tx) => {
    await ensureWorkspace(tx, workspace);
    await createTokenRepo(tx).setWorkspaceRateLimit(workspace, rateLimit);
  });
  return { workspace, rateLimit };
}

/** A workspace's own rate limit; 404 when the database has no such workspace. */
export async function workspaceRate(store: Store, workspace: string): Promise<WorkspaceRate> {
  const rateLimit = await createTokenRepo(store.sql).workspaceRateLimit(workspace);
  if (rateLimit === undefined) throw errors.notFound("workspace", workspace);
  return { workspace, rateLimit };
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
 * tokens revoke` elsewhere, takes effect on the next request after it is noticed; on
 * PostgreSQL every request is checked after Store.settled, so a revocation that returned
 * on any node before the request was sent is noticed by then. They
 * are remembered by the token as presented: a repeated request then skips the SHA-256,
 * which was the largest cost of answering a small cached read. That memory is the
 * process's own, bounded, and dropped at every change; the database holds hashes only and
 * nothing logs a token.
 */
export function createAuthenticator(store: Store, options: { onError?: (err: unknown) => void } = {}): Authenticator {
  const repo = createTokenRepo(store.sql);
  const touched = new Map<string, number>();
  const cache = new StampedCache<Principal | null>(MAX_CACHED);
  // Tokens refused because they expired, and when: the 401 says so (bounded like the cache).
  const expired = new Map<string, string>();
  /**
   * Whether a granted principal may still act now (false once its token expired, which is
   * then remembered for the 401), recording its use (its `lastUsedAt`, written at most every
   * TOUCH_EVERY_MS).
   */
  const used = (principal: Principal, token: string): boolean => {
    const t = Date.now();
    if (principal.expiresAtMs !== undefined && t >= principal.expiresAtMs) {
      if (expired.size >= MAX_CACHED) expired.clear();
      expired.set(token, new Date(principal.expiresAtMs).toISOString());
      return false;
    }
    if (t - (touched.get(principal.tokenId) ?? 0) > TOUCH_EVERY_MS) {
      touched.set(principal.tokenId, t);
      // Bookkeeping only: a failed write must not fail the request it rides on.
      repo.touch(principal.tokenId, new Date(t).toISOString()).catch((err: unknown) => options.onError?.(err));
    }
    return true;
  };
  const admit = (token: string, principal: Principal | null): Principal | undefined => {
    if (!principal || !used(principal, token)) return undefined;
    return { ...principal, scopes: [...principal.scopes] };
  };
  return {
    used,
    /**
     * The remembered verdict of a token under `stamp`: a principal, null for a refused
     * token, undefined when not remembered (then call `authenticate`). Synchronous, for
     * the read lane's hot path.
     */
    cached(token: string, stamp: string): Principal | null | undefined {
      if (!looksLikeToken(token)) return null;
      const principal = cache.get(stamp, token);
      return principal === undefined ? undefined : (admit(token, principal) ?? null);
    },
    /**
     * The principal of a valid, unrevoked token, or undefined. `stamp` is the store's
     * change stamp when the caller has just read it (after Store.settled, where the store
     * has it).
     */
    async authenticate(token: string, stamp?: string): Promise<Principal | undefined> {
      if (!looksLikeToken(token)) return undefined;
      // A revocation another node committed before this request was sent is heard first.
      if (stamp === undefined && store.settled) await store.settled();
      const now = stamp ?? store.changeStamp();
      let principal = cache.get(now, token);
      if (principal === undefined) {
        const row = await repo.findByHash(hashToken(token));
        principal =
          row && !row.revokedAt
            ? { tokenId: row.id, workspace: row.workspace, scopes: row.scopes, tokenRate: row.rateLimit, workspaceRate: row.workspaceRateLimit, ...(row.expiresAt ? { expiresAtMs: Date.parse(row.expiresAt) } : {}) }
            : null;
        cache.set(now, token, principal);
      }
      return admit(token, principal);
    },
    expiredAt: (token: string) => expired.get(token),
  };
}

/** Who may call: the database's tokens, or the studio's session. */
export interface Authenticator {
  /**
   * The remembered verdict of a token under `stamp`: a principal, null for a refused
   * token, undefined when not remembered (then call `authenticate`). Synchronous, for
   * the read lane's hot path.
   */
  cached(token: string, stamp: string): Principal | null | undefined;
  /** The principal of a valid, unrevoked, unexpired token, or undefined. */
  authenticate(token: string, stamp?: string): Promise<Principal | undefined>;
  /** When a token just refused had expired (ISO 8601), so the 401 can say so; undefined for any other refusal. */
  expiredAt?(token: string): string | undefined;
  /**
   * A principal this authenticator granted for `token`, used again without asking (the read
   * lane answering a request it answered before): false once the token has expired; its use
   * is recorded. Absent: the caller asks again.
   */
  used?(principal: Principal, token: string): boolean;
}
