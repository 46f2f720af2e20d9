import type { Sql } from "./sql.js";

/** A stored API token, without its hash (the hash never leaves this module but for lookups). */
export interface TokenRow {
  id: string;
  workspace: string;
  name: string | null;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface RawRow {
  id: string;
  workspace: string;
  name: string | null;
  scopes: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const COLUMNS = `id, workspace, name, scopes, created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"`;

const toRow = (r: RawRow): TokenRow => ({ ...r, scopes: JSON.parse(r.scopes) as string[] });

/**
 * Persistence of API tokens (table `tokens`). Only the SHA-256 of a token is stored, so
 * a leaked database does not leak working credentials.
 */
export function createTokenRepo(db: Sql) {
  return {
    async insert(row: Omit<TokenRow, "lastUsedAt" | "revokedAt">, tokenHash: string): Promise<void> {
      await db.run("INSERT INTO tokens (id, workspace, name, token_hash, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)", [
        row.id,
        row.workspace,
        row.name,
        tokenHash,
        JSON.stringify(row.scopes),
        row.createdAt,
      ]);
    },
    /** The token with this hash, revoked or not. */
    async findByHash(tokenHash: string): Promise<TokenRow | undefined> {
      const r = await db.get<RawRow>(`SELECT ${COLUMNS} FROM tokens WHERE token_hash = ?`, [tokenHash]);
      return r && toRow(r);
    },
    async get(id: string): Promise<TokenRow | undefined> {
      const r = await db.get<RawRow>(`SELECT ${COLUMNS} FROM tokens WHERE id = ?`, [id]);
      return r && toRow(r);
    },
    /** Every token, oldest first, optionally of one workspace. */
    async list(workspace?: string): Promise<TokenRow[]> {
      const rows = workspace
        ? await db.all<RawRow>(`SELECT ${COLUMNS} FROM tokens WHERE workspace = ? ORDER BY created_at, id`, [workspace])
        : await db.all<RawRow>(`SELECT ${COLUMNS} FROM tokens ORDER BY created_at, id`);
      return rows.map(toRow);
    },
    /** Marks a token revoked (keeping the first revocation time); false when unknown. */
    async revoke(id: string, at: string): Promise<boolean> {
      return (await db.run("UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?", [at, id])) > 0;
    },
    async touch(id: string, at: string): Promise<void> {
      await db.run("UPDATE tokens SET last_used_at = ? WHERE id = ?", [at, id]);
    },
  };
}

/** The token repository type. */
export type TokenRepo = ReturnType<typeof createTokenRepo>;
