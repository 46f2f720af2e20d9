import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteDatabase, type SqliteStore } from "../../src/engine/store/db.js";
import { backgroundCheckpoints, THREAD_FRAMES } from "../../src/engine/store/sqlite/background-checkpoints.js";
import { openSqliteFile } from "../../src/engine/store/sqlite/open-file.js";
import { watchWalIndex } from "../../src/engine/store/sqlite/wal-index-watch.js";

let dir: string;
let path: string;
let store: SqliteStore | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "dds-ckpt-"));
  path = join(dir, "dds.db");
});
afterEach(async () => {
  await store?.close();
  store = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** The WAL's last frame and the frames copied back, read from the wal-index (walformat.html: mxFrame at 16, nBackfill at 96). */
function walFrames(db: string): { max: number; backfilled: number } {
  const b = readFileSync(`${db}-shm`).subarray(0, 100);
  return { max: b.readUInt32LE(16), backfilled: b.readUInt32LE(96) };
}

/** Writes `rows` settings of 4 KB each in one write group: about a frame each. */
async function writeGroupOf(s: SqliteStore, from: number, rows: number): Promise<void> {
  const group = s.writeGroup();
  const value = "x".repeat(4000);
  for (let i = from; i < from + rows; i++) await s.sql.run("INSERT INTO settings (name, value) VALUES (?, ?)", [`k${i}`, `${value}${i}`]);
  group.commit();
}

describe("checkpoints in a thread of their own", () => {
  it("are not started by a writer that writes little", async () => {
    store = openSqliteDatabase(path);
    await writeGroupOf(store, 0, 10);
    await store.sql.tx(async (tx) => {
      await tx.run("INSERT INTO settings (name, value) VALUES ('one', 'more')");
    });
    expect(store.checkpoints?.started).toBe(false);
  });

  it("are not started by a writer that writes little into a WAL another connection filled", async () => {
    store = openSqliteDatabase(path);
    const other = openSqliteFile(path, { fileMustExist: true });
    try {
      // The other writer leaves its frames for later, as a busy `serve` between its checkpoints.
      other.pragma("wal_autocheckpoint = 0");
      const insert = other.prepare("INSERT INTO settings (name, value) VALUES (?, ?)");
      other.transaction(() => {
        for (let i = 0; i < THREAD_FRAMES + 500; i++) insert.run(`o${i}`, "z".repeat(4000));
      })();
      const late = openSqliteDatabase(path);
      try {
        await late.sql.tx(async (tx) => {
          await tx.run("INSERT INTO settings (name, value) VALUES ('mine', 'small')");
        });
        expect(walFrames(path).max - walFrames(path).backfilled).toBeGreaterThanOrEqual(THREAD_FRAMES);
        expect(late.checkpoints?.started).toBe(false);
      } finally {
        await late.close();
      }
    } finally {
      other.close();
    }
  });

  it("copy a large commit back while the writer goes on, and the writer's close leaves no WAL and every row", async () => {
    store = openSqliteDatabase(path);
    await writeGroupOf(store, 0, THREAD_FRAMES + 500);
    expect(store.checkpoints?.started).toBe(true);
    await store.checkpoints?.idle();
    // The thread copied the group's frames; the writer's own checkpoint (at 10,000) never ran.
    expect(store.checkpoints?.copied).toBeGreaterThanOrEqual(THREAD_FRAMES);
    const frames = walFrames(path);
    expect(frames.max).toBeGreaterThanOrEqual(THREAD_FRAMES);
    expect(frames.backfilled).toBe(frames.max);
    await writeGroupOf(store, THREAD_FRAMES + 500, 100);
    await store.close();
    store = undefined;
    expect(existsSync(`${path}-wal`)).toBe(false);
    const raw = openSqliteFile(path, { readonly: true, fileMustExist: true });
    try {
      expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(raw.prepare("SELECT count(*) AS n FROM settings WHERE name LIKE 'k%'").get()).toEqual({ n: THREAD_FRAMES + 600 });
    } finally {
      raw.close();
    }
  });

  it("keep the WAL from growing past the writer's threshold: it starts over once copied", async () => {
    store = openSqliteDatabase(path);
    for (let g = 0; g < 8; g++) {
      await writeGroupOf(store, g * 3000, 3000);
      await store.checkpoints?.idle();
    }
    // 24,000 frames were written; the file holds at most the writer's threshold plus a group.
    expect(statSync(`${path}-wal`).size).toBeLessThan(14_000 * 4120);
    const frames = walFrames(path);
    expect(frames.max).toBeGreaterThan(0);
    expect(frames.max).toBeLessThan(14_000);
  });

  it("hold a process that has nothing else to do until the thread's connection is closed (a real process, the built store)", () => {
    const db = pathToFileURL(join(import.meta.dirname, "../../dist/engine/store/db.js")).href;
    const script = `
      const { openSqliteDatabase } = await import(${JSON.stringify(db)});
      const store = openSqliteDatabase(${JSON.stringify(path)});
      // Two groups: the thread is running (started by the first) when the second asks it to
      // checkpoint and the store closes at once; nothing else keeps this process alive.
      for (let g = 0; g < 2; g++) {
        const group = store.writeGroup();
        for (let i = 0; i < ${THREAD_FRAMES + 500}; i++) await store.sql.run("INSERT INTO settings (name, value) VALUES (?, ?)", [g + "-" + i, "x".repeat(4000)]);
        group.commit();
        if (g === 0) await store.checkpoints.idle();
      }
      await store.close();
      console.log(JSON.stringify({ started: store.checkpoints.started }));
    `;
    // A file, not `-e`: code given with -e keeps the process up a little longer on its own.
    const file = join(dir, "close.mjs");
    writeFileSync(file, script);
    const out = execFileSync(process.execPath, [file], { encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({ started: true });
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it("change nothing when the thread cannot start: the writer checkpoints as before", async () => {
    const raw = openSqliteFile(path);
    raw.pragma("journal_mode = WAL");
    // Frames must wait for the thread: the connection's own checkpoint would copy them first.
    raw.pragma("wal_autocheckpoint = 0");
    raw.exec("CREATE TABLE t (v TEXT)");
    const wal = watchWalIndex(path)!;
    const checkpoints = backgroundCheckpoints(path, wal, () => ({ lib: join(dir, "no-such-module.js"), addon: join(dir, "no-such.node") }));
    expect(checkpoints).toBeDefined();
    const insert = raw.prepare("INSERT INTO t VALUES (?)");
    const value = "y".repeat(4000);
    raw.transaction(() => {
      for (let i = 0; i < THREAD_FRAMES + 100; i++) insert.run(value);
    })();
    checkpoints!.afterCommit();
    expect(checkpoints!.started).toBe(true);
    // The thread fails to load its module: the failure settles the request and ends the thread.
    await checkpoints!.idle();
    expect(checkpoints!.copied).toBe(0);
    checkpoints!.afterCommit();
    await checkpoints!.idle();
    expect(raw.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: THREAD_FRAMES + 100 });
    await checkpoints!.close();
    wal.close();
    raw.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
  });
});
