/**
 * Second schema version (REST hardening):
 * - `idempotency_keys.owner`: the server process that holds a `running` key, so a key
 *   whose process died is taken over at once instead of after an abandonment window;
 * - `settings`: values the store keeps for itself, first the key that signs list cursors
 *   (random per database, so a cursor made by one process is honoured by every other on
 *   the same file, and no client can forge one).
 */
export const sql = `
ALTER TABLE idempotency_keys ADD COLUMN owner TEXT;

CREATE TABLE settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO settings (name, value) VALUES ('cursor_key', lower(hex(randomblob(32))));
`;
