import type { ResultPromise } from "execa";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { issueToken } from "../../src/engine/auth/index.js";
import { uuidString } from "../../src/engine/store/values.js";
import { ddsctl, sandbox, type Sandbox } from "../helpers/cli.js";
import { SHARED_SECRET_KEY, spawnServe, type ServeProcess } from "../helpers/pg-nodes.js";
import { logDeliveryResults, loggedResults, startReceiver, tempDb, until } from "./support.js";

/**
 * Real `ddsctl serve` processes on a SQLite file, a real receiver on 127.0.0.1 that is
 * down (connection refused) for a while, and the schedule set short with
 * `--webhook-schedule` so an outage across several retries takes seconds. Every wait is
 * for a condition read from the database or the receiver, never a sleep.
 */
// Four quick waits, then long ones: whenever the receiver comes back, attempts remain.
const SCHEDULE = [300, 600, 900, 1200, 3000, 30_000, 30_000];
const children: ServeProcess[] = [];
afterAll(() => {
  for (const c of children) c.child.kill("SIGKILL");
});
// The servers seal and open webhook secrets with this key (it replaces the key file); the
// test's own engine is given it too.

async function serve(db: string, schedule = SCHEDULE.map((ms) => `${ms}ms`).join(",")): Promise<{ proc: ResultPromise; url: string }> {
  const p = await spawnServe(db, ["--webhook-schedule", schedule]);
  children.push(p);
  return { proc: p.child, url: `${p.origin}/v1` };
}

describe("deliveries across a receiver's outage, through ddsctl serve", () => {
  let db: ReturnType<typeof tempDb>;
  let raw: Database.Database;
  let token = "";
  let secret = "";
  let hookId = "";
  let port = 0;
  let box: Sandbox;

  beforeEach(async () => {
    db = tempDb();
    const engine = db.open({ env: { DDS_SECRET_KEY: SHARED_SECRET_KEY } });
    token = (await issueToken(engine.ctx.store, { workspace: "default", scopes: ["admin"] })).token;
    // A port nothing listens on yet: the receiver is down until the test starts it there.
    const probe = await startReceiver(() => secret);
    port = probe.port;
    await probe.close();
    const hook = await engine.createWebhook({ url: `http://127.0.0.1:${port}/hooks`, events: ["context.status_changed"] });
    secret = hook.secret!;
    hookId = hook.webhookId;
    raw = new Database(db.path);
    logDeliveryResults(raw);
    box = sandbox();
  });
  afterEach(async () => {
    raw.close();
    box.cleanup();
    await db.cleanup();
  });

  const api = (url: string, method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  /** Three lifecycle moves through the API: three deliveries. */
  const threeEvents = async (url: string) => {
    const contextId = ((await (await api(url, "POST", "/contexts", {})).json()) as { contextId: string }).contextId;
    for (const to of ["completed", "active", "completed"]) expect((await api(url, "PUT", `/contexts/${contextId}/status/${to}`)).status).toBe(200);
  };
  /** The outbox rows by their store key, each message id as the `webhook-id` header spells it. */
  const rows = () =>
    (raw.prepare("SELECT id, message_id AS messageId, status, attempts FROM webhook_deliveries ORDER BY created_at, id").all() as { id: number; messageId: Buffer; status: string; attempts: number }[]).map((r) => ({
      ...r,
      messageId: `msg_${uuidString(r.messageId)}`,
    }));
  const failedAttempts = (id: number) => loggedResults(raw, id).filter((r) => r.lastError !== null && /ECONNREFUSED/.test(r.lastError)).length;

  it("a receiver down across four attempts gets every event once it is back: same webhook-ids, each retry on its schedule, never early", async () => {
    const { url } = await serve(db.path);
    await threeEvents(url);
    await until(() => rows().length === 3 && rows().every((r) => failedAttempts(r.id) >= 4), 60_000);
    const rx = await startReceiver(() => secret, () => 204, port);
    try {
      await until(() => rows().every((r) => r.status === "delivered"), 60_000);
      const byId = new Map(rows().map((r) => [r.messageId, r]));
      expect(rx.received.map((r) => r.id).sort()).toEqual([...byId.keys()].sort());
      expect(rx.received.every((r) => r.verified)).toBe(true);
      for (const row of rows()) {
        const results = loggedResults(raw, row.id);
        const last = results[results.length - 1];
        expect(last).toMatchObject({ status: "delivered", lastStatusCode: 204 });
        results.slice(0, -1).forEach((r, i) => {
          expect(r).toMatchObject({ status: "pending", attempts: i + 1 });
          // The stored wait is the schedule's, at most 10 % longer (it is written a moment after it was chosen).
          expect(r.nextAttemptAt! - r.at).toBeLessThanOrEqual(SCHEDULE[i] * 1.1);
        });
        // Sent when due: never before the stored time of the attempt that succeeded.
        expect(rx.received.find((x) => x.id === row.messageId)!.at).toBeGreaterThanOrEqual(results[results.length - 2].nextAttemptAt!);
      }
    } finally {
      await rx.close();
    }
  });

  it("kill -9 of serve with deliveries pending loses none: the next serve sends each, with its webhook-id", async () => {
    const first = await serve(db.path);
    await threeEvents(first.url);
    await until(() => rows().length === 3 && rows().every((r) => failedAttempts(r.id) >= 1), 60_000);
    first.proc.kill("SIGKILL");
    await first.proc;
    const before = rows();
    expect(before.every((r) => r.status === "pending")).toBe(true);
    const rx = await startReceiver(() => secret, () => 204, port);
    try {
      await serve(db.path);
      await until(() => rows().every((r) => r.status === "delivered"), 60_000);
      expect(rx.received.map((r) => r.id).sort()).toEqual(before.map((r) => r.messageId).sort());
    } finally {
      await rx.close();
    }
  });

  it("failed deliveries are sent again by ddsctl webhooks recover, run against the file while serve runs", async () => {
    // Two attempts in all, then failed.
    const { url } = await serve(db.path, "300ms");
    await threeEvents(url);
    await until(() => rows().length === 3 && rows().every((r) => r.status === "failed" && r.attempts === 2), 60_000);
    const rx = await startReceiver(() => secret, () => 204, port);
    try {
      // Another process writes the file: serve's dispatcher finds the work within its idle poll (1 s).
      const r = await ddsctl(box, ["--local", db.path, "webhooks", "recover", hookId, "--since", "1h", "--json"]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.json()).toMatchObject({ webhookId: hookId, recovered: 3 });
      await until(() => rows().every((x) => x.status === "delivered"), 60_000);
      expect(rx.received.map((x) => x.id).sort()).toEqual(rows().map((x) => x.messageId).sort());
      expect(rows().every((x) => x.attempts === 1)).toBe(true);
    } finally {
      await rx.close();
    }
  });
});
