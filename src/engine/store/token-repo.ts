import type { Sql } from "./sql.js";
import { WORKSPACE } from "./workspace-sql.js";

/** A stored API token, without its hash (the hash never leaves this module but for lookups). */
export interface TokenRow {
  id: string;
  workspace: string;
  name: string | null;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** The token's own rate limit as written (`1000/min`, `off`); null: the server's default. */
  rateLimit: string | null;
  /** Its workspace's own rate limit; null: the server's default. */
  workspaceRateLimit: string | null;
  /** When it stops working; null: never. */
  expiresAt: string | null;
}

type RawRow = Omit<TokenRow, "scopes"> & { scopes: string };

const COLUMNS = `t.uuid AS id, w.name AS workspace, t.name, t.scopes, t.created_at AS "createdAt", t.last_used_at AS "lastUsedAt", t.revoked_at AS "revokedAt", t.rate_limit AS "rateLimit", w.rate_limit AS "workspaceRateLimit", t.expires_at AS "expiresAt"`;
const FROM = "tokens t JOIN workspaces w ON w.id = t.workspace_id";

const toRow = (r: RawRow): TokenRow => ({ ...r, scopes: JSON.parse(r.scopes) as string[] });

/**
 * Persistence of API tokens (table `tokens`). Only the SHA-256 of a token is stored, so
 * a leaked database does not leak working credentials.
 */
export function createTokenRepo(db: Sql) {
  const d = db.dialect;
  return {
    async insert(row: Omit<TokenRow, "lastUsedAt" | "revokedAt" | "workspaceRateLimit">, tokenHash: string): Promise<void> {
      await db.run(`INSERT INTO tokens (uuid, workspace_id, name, token_hash, scopes, created_at, rate_limit, expires_at) VALUES (?, ${WORKSPACE}, ?, ?, ?, ?, ?, ?)`, [
        d.uuid(row.id),
        row.workspace,
        row.name,
        d.digest(tokenHash),
        JSON.stringify(row.scopes),
        d.time(row.createdAt),
        row.rateLimit,
        d.time(row.expiresAt),
      ]);
    },
    /** The token with this hash (hex), revoked or not. */
    async findByHash(tokenHash: string): Promise<TokenRow | undefined> {
      const r = await db.get<RawRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE t.token_hash = ?`, [d.digest(tokenHash)]);
      return r && toRow(r);
    },
    async get(id: string): Promise<TokenRow | undefined> {
      const r = await db.get<RawRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE t.uuid = ?`, [d.uuid(id)]);
      return r && toRow(r);
    },
    /** Every token, oldest first, optionally of one workspace. */
    async list(workspace?: string): Promise<TokenRow[]> {
      const rows = workspace
        ? await db.all<RawRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE w.name = ? ORDER BY t.created_at, t.uuid`, [workspace])
        : await db.all<RawRow>(`SELECT ${COLUMNS} FROM ${FROM} ORDER BY t.created_at, t.uuid`);
      return rows.map(toRow);
    },
    /** Marks a token revoked (keeping the first revocation time); false when unknown. */
    async revoke(id: string, at: string): Promise<boolean> {
      return (await db.run("UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE uuid = ?", [d.time(at), d.uuid(id)])) > 0;
    },
    /** Sets a token's own rate limit (null: the server's default); false when unknown. */
    async setRateLimit(id: string, rateLimit: string | null): Promise<boolean> {
      return (await db.run("UPDATE tokens SET rate_limit = ? WHERE uuid = ?", [rateLimit, d.uuid(id)])) > 0;
    },
    /** Sets a workspace's own rate limit (null: the server's default); false when there is no such workspace. */
    async setWorkspaceRateLimit(workspace: string, rateLimit: string | null): Promise<boolean> {
      return (await db.run("UPDATE workspaces SET rate_limit = ? WHERE name = ?", [rateLimit, workspace])) > 0;
    },
    /** A workspace's own rate limit: undefined when there is no such workspace. */
    async workspaceRateLimit(workspace: string): Promise<string | null | undefined> {
      const r = await db.get<{ rateLimit: string | null }>(`SELECT rate_limit AS "rateLimit" FROM workspaces WHERE name = ?`, [workspace]);
      return r && r.rateLimit;
    },
    async touch(id: string, at: string): Promise<void> {
      await db.run("UPDATE tokens SET last_used_at = ? WHERE uuid = ?", [d.time(at), d.uuid(id)]);
    },
  };
}

/** The token repository type. */
export type TokenRepo = ReturnType<typeof createTokenRepo>;
