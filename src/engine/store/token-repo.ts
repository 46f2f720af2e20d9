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
  /** When it stops working; null: never. */
  expiresAt: string | null;
}

type RawRow = Omit<TokenRow, "scopes"> & { scopes: string };

const COLUMNS = `t.uuid AS id, w.name AS workspace, t.name, t.scopes, t.created_at AS "createdAt", t.last_used_at AS "lastUsedAt", t.revoked_at AS "revokedAt", t.expires_at AS "expiresAt"`;
const FROM = "tokens t JOIN workspaces w ON w.id = t.workspace_id";

const toRow = (r: RawRow): TokenRow => ({ ...r, scopes: JSON.parse(r.scopes) as string[] });

/**
 * Persistence of API tokens (table `tokens`). Only the SHA-256 of a token is stored, so
 * a leaked database does not leak working credentials.
 */
export function createTokenRepo(db: Sql) {
  const d = db.dialect;
  return {
    async insert(row: Omit<TokenRow, "lastUsedAt" | "revokedAt">, tokenHash: string): Promise<void> {
      await db.run(`INSERT INTO tokens (uuid, workspace_id, name, token_hash, scopes, created_at, expires_at) VALUES (?, ${WORKSPACE}, ?, ?, ?, ?, ?)`, [
        d.uuid(row.id),
        row.workspace,
        row.name,
        d.digest(tokenHash),
        JSON.stringify(row.scopes),
        d.time(row.createdAt),
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
    async touch(id: string, at: string): Promise<void> {
      await db.run("UPDATE tokens SET last_used_at = ? WHERE uuid = ?", [d.time(at), d.uuid(id)]);
    },
  };
}

/** The token repository type. */
export type TokenRepo = ReturnType<typeof createTokenRepo>;
