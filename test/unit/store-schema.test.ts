import { getTableColumns, getTableName } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/engine/store/db.js";
import { MIGRATIONS } from "../../src/engine/store/migrations/index.js";
import * as schema from "../../src/engine/store/schema.js";

const dir = mkdtempSync(join(tmpdir(), "ddsctl-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("store", () => {
  it("migrates a new database, with WAL, foreign keys and a busy timeout", () => {
    const store = openStore(join(dir, "a.db"));
    expect(store.raw.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(store.raw.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(Number(store.raw.pragma("busy_timeout", { simple: true }))).toBeGreaterThan(0);
    expect(store.raw.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    store.close();
  });

  it("drizzle's schema matches the migrated tables column for column", () => {
    const store = openStore(join(dir, "b.db"));
    for (const table of Object.values(schema)) {
      if (!(table instanceof SQLiteTable)) continue;
      const name = getTableName(table);
      const actual = (store.raw.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[]).map((c) => c.name).sort();
      const declared = Object.values(getTableColumns(table)).map((c) => c.name).sort();
      expect(declared, name).toEqual(actual);
    }
    store.close();
  });

  it("reopening is a no-op and a database from a newer ddsctl is refused", () => {
    const path = join(dir, "c.db");
    openStore(path).close();
    openStore(path).close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => openStore(path)).toThrow(/newer than this ddsctl supports/);
  });
});
