import type { Store } from "./db.js";
import { statements } from "./statements.js";

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
  const q = statements(store.raw);
  return {
    all(): SecretRow[] {
      const hooks = q("SELECT id AS ref, secret AS value FROM webhooks").all() as { ref: string; value: string }[];
      const replays = q(
        `SELECT workspace || char(0) || key AS ref, body AS value FROM idempotency_keys
         WHERE body LIKE 'enc:v1:%' OR body LIKE '%"secret":"whsec\\_%' ESCAPE '\\'`,
      ).all() as { ref: string; value: string }[];
      return [...hooks.map((r) => ({ table: "webhooks" as const, ...r })), ...replays.map((r) => ({ table: "idempotency_keys" as const, ...r }))];
    },
    update(row: SecretRow, value: string): void {
      if (row.table === "webhooks") {
        q("UPDATE webhooks SET secret = ? WHERE id = ?").run(value, row.ref);
      } else {
        const [workspace, key] = row.ref.split("\u0000");
        q("UPDATE idempotency_keys SET body = ? WHERE workspace = ? AND key = ?").run(value, workspace, key);
      }
    },
    /**
     * Overwrites freed space while `fn` runs and checkpoints the WAL afterwards, so a clear
     * value replaced by its sealed form leaves no copy in the database files.
     */
    scrubbing<T>(fn: () => T): T {
      store.raw.pragma("secure_delete = ON");
      try {
        return fn();
      } finally {
        store.raw.pragma("secure_delete = OFF");
        store.raw.pragma("wal_checkpoint(TRUNCATE)");
      }
    },
  };
}
