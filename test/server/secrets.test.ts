import { execa } from "execa";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { newSecretKey } from "../../src/engine/secrets/key-ring.js";
import { rotateSecrets } from "../../src/engine/secrets/secret-rotation.js";
import { openSqliteDatabase } from "../../src/engine/store/db.js";
import { createWebhookDispatcher } from "../../src/engine/webhooks/index.js";
import { BIN } from "../helpers/cli.js";
import { startServer, type Harness } from "./harness.js";
import { uuidBytes } from "../../src/engine/store/values.js";
import { newId } from "../../src/util/ids.js";

let h: Harness;
let admin: string;

beforeAll(async () => {
  h = await startServer({ worker: false, webhooks: false });
  admin = await h.token("admin");
});

afterAll(async () => {
  await h?.close();
});

const create = (key?: string) =>
  h.request("POST", "/v1/webhooks", { token: admin, body: { url: "http://127.0.0.1:9/hook", events: ["context.resolved"] }, headers: key ? { "idempotency-key": key } : {} });

/** Every file of the database (dds.db, -wal, -shm) and beside it, with its mode. */
function databaseFiles(dir: string): { name: string; mode: number }[] {
  return readdirSync(dir)
    .filter((name) => statSync(join(dir, name)).isFile())
    .map((name) => ({ name, mode: statSync(join(dir, name)).mode & 0o777 }));
}

/**
 * The files of `dir` that contain `text`, by `grep` in another process: reading a database
 * file here would close a descriptor of it, which drops this process's SQLite locks.
 */
async function grepFiles(dir: string, text: string): Promise<string[]> {
  const r = await execa("grep", ["-rlF", "--", text, dir], { reject: false });
  return r.stdout.split("\n").filter(Boolean);
}

describe("webhook signing secrets at rest", () => {
  it("are stored encrypted, in the webhooks table and in the replay copy, and a keyed replay still shows the secret", async () => {
    const first = await create("hook-key-1");
    expect(first.status).toBe(201);
    const secret = first.json.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const row = h.store.raw.prepare("SELECT secret FROM webhooks WHERE uuid = ?").get(uuidBytes(first.json.webhookId as string)) as { secret: string };
    expect(row.secret).toMatch(/^enc:v1:/);
    const replayRow = h.store.raw.prepare("SELECT body FROM idempotency_keys WHERE key = 'hook-key-1'").get() as { body: string };
    expect(replayRow.body).toMatch(/^enc:v1:/);
    const replay = await create("hook-key-1");
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.json.secret).toBe(secret);
    // No database file holds the secret, nor any part of it long enough to matter.
    expect(databaseFiles(h.dir).map((f) => f.name)).toEqual(expect.arrayContaining(["dds.db", "dds.db-wal", "dds.db-shm", "dds.db.key"]));
    expect(await grepFiles(h.dir, secret)).toEqual([]);
    expect(await grepFiles(h.dir, secret.slice(6, 26))).toEqual([]);
  });

  it("database files and the key file are created 0600", () => {
    for (const f of databaseFiles(h.dir)) expect(f.mode.toString(8), f.name).toBe("600");
    expect((statSync(`${h.dbPath}.owners`).mode & 0o777).toString(8)).toBe("700");
  });

  it("deliveries are signed with the decrypted secret", async () => {
    const store = openSqliteDatabase(":memory:");
    const engine = createLocalEngine({ db: store });
    const hook = await engine.createWebhook({ url: "http://receiver.test/hook", events: ["context.status_changed"] });
    const ctx = await engine.createContext({ name: "c" });
    await engine.setContextStatus(ctx.contextId, "completed");
    const seen: { headers: Headers; body: string }[] = [];
    const dispatcher = createWebhookDispatcher(store, {
      fetch: async (_url, init) => {
        seen.push({ headers: new Headers(init?.headers as Record<string, string>), body: String(init?.body) });
        return new Response(null, { status: 204 });
      },
    });
    await dispatcher.tick();
    expect(seen).toHaveLength(1);
    const verified = new Webhook(hook.secret!).verify(seen[0].body, Object.fromEntries(seen[0].headers));
    expect(verified).toMatchObject({ type: "context.status_changed" });
    engine.close();
  });

  it("DDS_SECRET_KEY replaces the key file; rotating re-encrypts under its first key", async () => {
    const old = newSecretKey();
    const next = newSecretKey();
    const env = { DDS_SECRET_KEY: old.key.toString("base64") };
    const store = openSqliteDatabase(":memory:");
    const { secretBoxFor } = await import("../../src/engine/secrets/secret-box.js");
    const sealed = secretBoxFor(store, env).seal("whsec_abc", "webhook-secret");
    expect(sealed).toContain(`:${old.id}:`);
    store.raw.prepare("INSERT INTO workspaces (name, created_at) VALUES ('w', 0)").run();
    store.raw.prepare("INSERT INTO webhooks (uuid, workspace_id, url, events, secret, created_at) VALUES (?, 1, 'u', '[]', ?, 0)").run(uuidBytes(newId()), sealed);
    const report = await rotateSecrets(store, { DDS_SECRET_KEY: `${next.key.toString("base64")},${old.key.toString("base64")}` });
    expect(report).toMatchObject({ keyId: next.id, retiredKeyIds: [old.id], resealed: 1 });
    const stored = (store.raw.prepare("SELECT secret FROM webhooks").get() as { secret: string }).secret;
    expect(stored).toContain(`:${next.id}:`);
    const other = openSqliteDatabase(":memory:");
    expect(secretBoxFor(other, { DDS_SECRET_KEY: next.key.toString("base64") }).open(stored, "webhook-secret")).toBe("whsec_abc");
    await other.close();
    await store.close();
  });
});

describe("ddsctl secrets rotate", () => {
  it("writes a new key, re-encrypts every secret (replay copies too), and the old key is gone", async () => {
    const made = await create("hook-key-2");
    const keyFile = `${h.dbPath}.key`;
    const before = readFileSync(keyFile, "utf8");
    const r = await execa("node", [BIN, "--local", h.dbPath, "secrets", "rotate", "--json"], { reject: false, env: { NO_COLOR: "1" } });
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.resealed).toBeGreaterThanOrEqual(3);
    const after = readFileSync(keyFile, "utf8");
    expect(after.trim().split("\n")).toHaveLength(1);
    expect(after).not.toBe(before);
    expect((statSync(keyFile).mode & 0o777).toString(8)).toBe("600");
    const rows = h.store.raw.prepare("SELECT secret FROM webhooks").all() as { secret: string }[];
    for (const row of rows) expect(row.secret).toContain(`:${report.keyId}:`);
    // The running server reads the new key file: the keyed replay still answers the secret.
    const replay = await create("hook-key-2");
    expect(replay.json.secret).toBe(made.json.secret);
  });

  it("seals secrets an older database stored in clear text when serve starts", async () => {
    const clear = "whsec_ClearTextFromAnOlderRelease0000";
    h.store.raw.prepare("UPDATE webhooks SET secret = ? WHERE rowid = (SELECT min(rowid) FROM webhooks)").run(clear);
    const restarted = await startServer({ dbPath: h.dbPath, worker: false, webhooks: false });
    try {
      const rows = restarted.store.raw.prepare("SELECT secret FROM webhooks").all() as { secret: string }[];
      expect(rows.every((r) => r.secret.startsWith("enc:v1:"))).toBe(true);
      expect(await grepFiles(h.dir, clear)).toEqual([]);
    } finally {
      await restarted.close(true);
    }
  });
});
