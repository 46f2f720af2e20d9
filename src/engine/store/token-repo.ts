import type { Store } from "./db.js";
import { statements } from "./statements.js";

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

const COLUMNS = "id, workspace, name, scopes, created_at AS createdAt, last_used_at AS lastUsedAt, revoked_at AS revokedAt";

const toRow = (r: RawRow): TokenRow => ({ ...r, scopes: JSON.parse(r.scopes) as string[] });

/**
 * Persistence of API tokens (table `tokens`). Only the SHA-256 of a token is stored, so
 * a leaked database does not leak working credentials.
 */
export function createTokenRepo(store: Store) {
  const q = statements(store.raw);
  return {
    insert(row: Omit<TokenRow, "lastUsedAt" | "revokedAt">, tokenHash: string): void {
      q("INSERT INTO tokens (id, workspace, name, token_hash, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(
        row.id,
        row.workspace,
        row.name,
        tokenHash,
        JSON.stringify(row.scopes),
        row.createdAt,
      );
    },
    /** The token with this hash, revoked or not. */
    findByHash(tokenHash: string): TokenRow | undefined {
      const r = q(`SELECT ${COLUMNS} FROM tokens WHERE token_hash = ?`).get(tokenHash) as RawRow | undefined;
      return r && toRow(r);
    },
    get(id: string): TokenRow | undefined {
      const r = q(`SELECT ${COLUMNS} FROM tokens WHERE id = ?`).get(id) as RawRow | undefined;
      return r && toRow(r);
    },
    /** Every token, oldest first, optionally of one workspace. */
    list(workspace?: string): TokenRow[] {
      const rows = workspace
        ? (q(`SELECT ${COLUMNS} FROM tokens WHERE workspace = ? ORDER BY created_at, id`).all(workspace) as RawRow[])
        : (q(`SELECT ${COLUMNS} FROM tokens ORDER BY created_at, id`).all() as RawRow[]);
      return rows.map(toRow);
    },
    /** Marks a token revoked (keeping the first revocation time); false when unknown. */
    revoke(id: string, at: string): boolean {
      return q("UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?").run(at, id).changes > 0;
    },
    touch(id: string, at: string): void {
      q("UPDATE tokens SET last_used_at = ? WHERE id = ?").run(at, id);
    },
  };
}

/** The token repository type. */
export type TokenRepo = ReturnType<typeof createTokenRepo>;
