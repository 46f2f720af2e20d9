import { execa, type ResultPromise } from "execa";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "../../src/engine/auth/index.js";
import { openSqliteDatabase } from "../../src/engine/store/db.js";
import { BIN } from "../helpers/cli.js";

const HOLD = join(import.meta.dirname, "fixtures/hold-key.mjs");
let dir: string;
let db: string;
let token: string;
const procs: ResultPromise[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ddsctl-crash-"));
  db = join(dir, "dds.db");
  const store = openSqliteDatabase(db);
  token = (await issueToken(store, { workspace: "default", scopes: ["admin"] })).token;
  await store.close();
});

afterAll(() => {
  for (const p of procs) p.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts the fixture that holds a key and resolves once it says so. Plain spawn: its
 * stdout is read here and nowhere else.
 */
async function holdKey(key: string): Promise<ChildProcess> {
  const proc = spawn(process.execPath, [HOLD, db, "default", key], { stdio: ["ignore", "pipe", "inherit"] });
  let seen = "";
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on("data", (d: Buffer) => {
      seen += d.toString();
      if (seen.includes("held")) resolve();
    });
    proc.once("exit", (code) => reject(new Error(`the key holder exited (${code}) before holding the key: ${seen}`)));
  });
  return proc;
}

async function serve(): Promise<{ proc: ResultPromise; url: string }> {
  const proc = execa("node", [BIN, "serve", "--port", "0", "--quiet", "--local", db], { reject: false, env: { NO_COLOR: "1" } });
  procs.push(proc);
  let seen = "";
  const url = await new Promise<string>((resolve, reject) => {
    proc.stderr!.on("data", (d: Buffer) => {
      seen += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(seen);
      if (m) resolve(m[1]);
    });
    proc.then((r) => reject(new Error(`serve exited ${r.exitCode}: ${seen}`)), reject);
  });
  return { proc, url };
}

async function kill9(proc: ResultPromise): Promise<void> {
  proc.kill("SIGKILL");
  await proc;
}

const post = (url: string, path: string, key: string, body: unknown) =>
  fetch(`${url}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": key }, body: JSON.stringify(body) });

describe("an Idempotency-Key marked running by a process that died", () => {
  it("is honoured while its process lives (409) and taken over the moment it is killed", async () => {
    const server = await serve();
    const holder = await holdKey("crash-key-1");
    const refused = await post(server.url, "/contexts", "crash-key-1", { name: "after-crash" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { code: string }).code).toBe("idempotency_in_progress");
    const gone = new Promise((r) => holder.once("exit", r));
    holder.kill("SIGKILL");
    await gone;
    // No waiting: the very next retry is processed.
    const retried = await post(server.url, "/contexts", "crash-key-1", { name: "after-crash" });
    expect(retried.status).toBe(201);
    const replayed = await post(server.url, "/contexts", "crash-key-1", { name: "after-crash" });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    const idOf = async (r: Response) => ((await r.json()) as { contextId: string }).contextId;
    expect(await idOf(replayed)).toBe(await idOf(retried));
    await kill9(server.proc);
  });
});

describe("a keyed bulk load through ddsctl serve killed with kill -9", () => {
  it("loses nothing, doubles nothing, and no retry after the restart is refused as still running", async () => {
    // The model the load writes into.
    let server = await serve();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests index freely into API JSON
    const admin = (method: string, path: string, body?: unknown): Promise<any> =>
      fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }).then((r) => r.json());
    const model = await admin("POST", "/models", { name: "Item", identity: ["n"], fields: [{ name: "n", type: "integer" }] });
    await admin("PUT", `/models/${model.modelId}/status/active`);
    const context = await admin("POST", "/contexts", { name: "load" });
    const BATCHES = 60;
    const batch = (b: number) => ({
      items: Array.from({ length: 50 }, (_, i) => ({ contextId: context.contextId, modelId: model.modelId, sourceId: `b${b}-${i}`, sourceType: "integration", data: { n: b * 50 + i } })),
    });
    const done = new Set<number>();
    const refusedAfterRestart: number[] = [];
    let restarted = false;
    // Four writers; the server is killed once a third of the batches have answered.
    let next = 0;
    const writer = async () => {
      while (next < BATCHES) {
        const b = next++;
        for (;;) {
          try {
            const res = await post(server.url, "/contributions/bulk", `load-${b}`, batch(b));
            if (res.status === 200) {
              done.add(b);
              break;
            }
            if (res.status === 409 && restarted) refusedAfterRestart.push(b);
          } catch {
            // The connection died with the server: retry the same key once it is back.
          }
          await new Promise((r) => setTimeout(r, 20));
        }
        if (done.size === Math.floor(BATCHES / 3) && !restarted) {
          await kill9(server.proc);
          server = await serve();
          restarted = true;
        }
      }
    };
    await Promise.all([writer(), writer(), writer(), writer()]);
    expect(done.size).toBe(BATCHES);
    expect(restarted).toBe(true);
    expect(refusedAfterRestart).toEqual([]);
    const page = await admin("GET", `/contributions?filter[contextId][eq]=${context.contextId}&limit=500`);
    let count = page.data.length;
    let cursor = page.nextCursor;
    while (cursor) {
      const more = await admin("GET", `/contributions?filter[contextId][eq]=${context.contextId}&limit=500&cursor=${cursor}`);
      count += more.data.length;
      cursor = more.nextCursor;
    }
    expect(count).toBe(BATCHES * 50);
    await kill9(server.proc);
  });
});
