import type { Sql } from "./sql.js";

/**
 * The key that signs list cursors, kept in the database (table `settings`, written by the
 * migrations), read once per store. Every process (and node) on the same database signs
 * and checks with the same key, so a cursor stays valid across restarts and servers.
 */
export async function cursorKeyOf(db: Sql): Promise<Buffer> {
  const cached = db.memo.get("cursor_key");
  if (cached) return cached as Buffer;
  const read = async () => (await db.get<{ value: string }>("SELECT value FROM settings WHERE name = 'cursor_key'"))?.value;
  let hex = await read();
  if (hex === undefined) {
    // The migration writes the row; this only repairs a database whose row was deleted.
    const { randomBytes } = await import("node:crypto");
    await db.run("INSERT INTO settings (name, value) VALUES ('cursor_key', ?) ON CONFLICT (name) DO NOTHING", [randomBytes(32).toString("hex")]);
    hex = (await read())!;
  }
  const key = Buffer.from(hex, "hex");
  db.memo.set("cursor_key", key);
  return key;
}
