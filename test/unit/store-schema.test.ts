import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteDatabase } from "../../src/engine/store/db.js";
import { ensureWorkspace } from "../../src/engine/store/store.js";
import { MIGRATIONS } from "../../src/engine/store/sqlite/migrations/index.js";
import { declaredShape, sqliteShape } from "../helpers/schema-shape.js";

const dir = mkdtempSync(join(tmpdir(), "ddsctl-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("store", () => {
  it("migrates a new database, with WAL and foreign keys", async () => {
    const store = openSqliteDatabase(join(dir, "a.db"));
    expect(store.raw.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(store.raw.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(store.raw.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    await store.close();
  });

  it("waits for another connection's write lock without stopping the event loop", async () => {
    const path = join(dir, "busy.db");
    const a = openSqliteDatabase(path);
    const b = openSqliteDatabase(path);
    const group = a.writeGroup(); // holds the file's write lock
    let done = false;
    const write = b.sql.tx((tx) => ensureWorkspace(tx, "w")).then(() => void (done = true));
    // Timers still run while b waits: its wait is not a sleep inside SQLite.
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    group.commit();
    await write;
    expect(await b.sql.get("SELECT name FROM workspaces")).toEqual({ name: "w" });
    await a.close();
    await b.close();
  });

  it("a new database has the declared schema: columns, types, defaults, checks, keys, foreign keys and indexes", () => {
    const store = openSqliteDatabase(join(dir, "b.db"));
    expect(sqliteShape(store.raw)).toEqual(declaredShape("sqlite"));
    store.close();
  });

  it("reopening is a no-op and a database from a newer ddsctl is refused", () => {
    const path = join(dir, "c.db");
    openSqliteDatabase(path).close();
    openSqliteDatabase(path).close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => openSqliteDatabase(path)).toThrow(/newer than this ddsctl supports/);
  });
});

describe("a schema change made once for both engines", () => {
  it("renders, from the declaration, the steps that bring an older table to it", async () => {
    const { createIndexSql, createTableSql, indexesOn } = await import("../../src/engine/store/schema/ddl.js");
    const { stepSql } = await import("../../src/engine/store/schema/changes.js");
    const { TABLES } = await import("../../src/engine/store/schema/tables.js");
    // A database as it would have been before a column and an index were added.
    const raw = new Database(":memory:");
    for (const t of TABLES) {
      const older = t.name === "webhooks" ? { ...t, columns: Object.fromEntries(Object.entries(t.columns).filter(([c]) => c !== "disabled_reason")) } : t;
      raw.exec(createTableSql("sqlite", older));
      for (const i of indexesOn("sqlite", t)) if (i.name !== "webhook_deliveries_by_hook_status") raw.exec(createIndexSql(t, i));
    }
    expect(sqliteShape(raw)).not.toEqual(declaredShape("sqlite"));
    raw.exec(stepSql("sqlite", { addColumn: { table: "webhooks", column: "disabled_reason" } }));
    raw.exec(stepSql("sqlite", { createIndex: { table: "webhook_deliveries", index: "webhook_deliveries_by_hook_status" } }));
    expect(sqliteShape(raw)).toEqual(declaredShape("sqlite"));
    raw.close();
  });
});
