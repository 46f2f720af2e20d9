import type Database from "better-sqlite3";
import { statements } from "./statements.js";

const cursorKeys = new WeakMap<Database.Database, Buffer>();

/**
 * The key that signs list cursors, kept in the database (table `settings`, created by
 * migration 0002), read once per connection. Every process on the same database signs
 * and checks with the same key, so a cursor stays valid across restarts and servers.
 */
export function cursorKeyOf(raw: Database.Database): Buffer {
  let key = cursorKeys.get(raw);
  if (!key) {
    const q = statements(raw);
    const read = () => q("SELECT value FROM settings WHERE name = 'cursor_key'").pluck().get() as string | undefined;
    let hex = read();
    if (hex === undefined) {
      // The migration writes the row; this only repairs a database whose row was deleted.
      q("INSERT INTO settings (name, value) VALUES ('cursor_key', lower(hex(randomblob(32)))) ON CONFLICT(name) DO NOTHING").run();
      hex = read()!;
    }
    key = Buffer.from(hex, "hex");
    cursorKeys.set(raw, key);
  }
  return key;
}
