import type { SqliteStore } from "./sqlite/sqlite-store.js";
import type { Sql } from "./sql.js";
import type { Store } from "./store.js";

/** A stored value that holds a secret, addressed by its row. */
export interface SecretRow {
  table: "webhooks" | "idempotency_keys";
  /** `id` of a webhook; `workspace` + NUL + `key` of an idempotency row. */
  ref: string;
  value: string;
}

/**
 * Every stored value that holds a secret, sealed or not (the rotation and the sealing of
 * databases written before encryption read them here): webhook signing secrets, and the
 * replay copies of answers that showed one (sealed bodies, or clear ones from before).
 */
export function createSecretRowsRepo(store: Store) {
  return {
    async all(db: Sql = store.sql): Promise<SecretRow[]> {
      const hooks = await db.all<{ ref: string; value: string }>("SELECT uuid AS ref, secret AS value FROM webhooks");
      const replays = await db.all<{ workspace: string; key: string; value: string }>(
        `SELECT w.name AS workspace, k.key, k.body AS value FROM idempotency_keys k JOIN workspaces w ON w.id = k.workspace_id
         WHERE k.body LIKE 'enc:v1:%' OR k.body LIKE '%"secret":"whsec\\_%' ESCAPE '\\'`,
      );
      return [
        ...hooks.map((r) => ({ table: "webhooks" as const, ...r })),
        ...replays.map((r) => ({ table: "idempotency_keys" as const, ref: `${r.workspace}\u0000${r.key}`, value: r.value })),
      ];
    },
    async update(db: Sql, row: SecretRow, value: string): Promise<void> {
      if (row.table === "webhooks") {
        await db.run("UPDATE webhooks SET secret = ? WHERE uuid = ?", [value, db.dialect.uuid(row.ref)]);
      } else {
        const [workspace, key] = row.ref.split("\u0000");
        await db.run("UPDATE idempotency_keys SET body = ? WHERE workspace_id = (SELECT id FROM workspaces WHERE name = ?) AND key = ?", [value, workspace, key]);
      }
    },
    /**
     * SQLite: overwrites freed space while `fn` runs and checkpoints the WAL afterwards, so
     * a clear value replaced by its sealed form leaves no copy in the database files.
     * (PostgreSQL reclaims old row versions with VACUUM, which its operator schedules.)
     */
    async scrubbing<T>(fn: () => Promise<T>): Promise<T> {
      if (store.kind !== "sqlite") return fn();
      const raw = (store as SqliteStore).raw;
      raw.pragma("secure_delete = ON");
      try {
        return await fn();
      } finally {
        raw.pragma("secure_delete = OFF");
        raw.pragma("wal_checkpoint(TRUNCATE)");
      }
    },
  };
}
