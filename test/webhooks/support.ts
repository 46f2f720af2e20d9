import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import type Database from "better-sqlite3";
import { appOver, type AppEnv } from "../../src/engine/app.js";
import type { LocalEngine, LocalEngineOptions } from "../../src/engine/local-engine.js";
import { openSqliteDatabase, type SqliteStore } from "../../src/engine/store/db.js";
import { uuidBytes, uuidString } from "../../src/engine/store/values.js";

/** The raw SQLite connection under an engine (these tests run on SQLite files). */
export const rawOf = (engine: LocalEngine): Database.Database => (engine.ctx.store as SqliteStore).raw;

/** A temp database file and engines opened on it; `cleanup` closes and removes them. */
export function tempDb(): { path: string; open(options?: Omit<LocalEngineOptions, "db" | "secrets"> & { env?: AppEnv }): LocalEngine; cleanup(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), "ddsctl-webhooks-"));
  const engines: LocalEngine[] = [];
  const path = join(dir, "dds.db");
  return {
    path,
    open(options = {}) {
      // An application of its own, given `env` (the secret key a serve process would have).
      const app = appOver(openSqliteDatabase(path), { env: options.env ?? {}, pipeline: options.pipeline, ownsStore: true });
      const engine: LocalEngine = { ...app.engine({ workspace: options.workspace ?? "default", actor: options.actor }), close: () => app.close() };
      engines.push(engine);
      return engine;
    },
    async cleanup() {
      for (const e of engines) await e.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every column of one webhook's outbox rows, oldest first (tests read the payload too). */
export function outboxRows(engine: LocalEngine, webhookId?: string): { eventType: string; messageId: string; payload: { type: string; timestamp: string; data: Record<string, unknown> }; status: string; attempts: number; workspace: string }[] {
  const rows = rawOf(engine)
    .prepare(
      `SELECT d.event_type AS eventType, d.message_id AS messageId, d.payload, d.status, d.attempts, ws.name AS workspace FROM webhook_deliveries d
       JOIN webhooks w ON w.id = d.webhook_id JOIN workspaces ws ON ws.id = w.workspace_id
       ${webhookId ? "WHERE w.uuid = ?" : ""} ORDER BY d.created_at, d.id`,
    )
    .all(...(webhookId ? [uuidBytes(webhookId)] : [])) as { eventType: string; messageId: Buffer; payload: string; status: string; attempts: number; workspace: string }[];
  return rows.map((r) => ({ ...r, messageId: `msg_${uuidString(r.messageId)}`, payload: JSON.parse(r.payload) as { type: string; timestamp: string; data: Record<string, unknown> } }));
}

/**
 * Logs every result written to a delivery row into `delivery_results` (a trigger in the
 * database file, so it sees the writes of any process): what each settle stored, in order,
 * without racing the dispatcher to read it before the next claim moves it. A claim changes
 * the attempt count and is not logged; a settle (or a disabling) keeps it. Rows are logged
 * by the delivery's integer key (`webhook_deliveries.id`), times as the epoch ms SQLite stores.
 */
export function logDeliveryResults(raw: Database.Database): void {
  raw.exec(`
    CREATE TABLE delivery_results (seq INTEGER PRIMARY KEY, id INTEGER, status TEXT, attempts INTEGER, next_attempt_at INTEGER, last_status_code INTEGER, last_error TEXT, at INTEGER);
    CREATE TRIGGER delivery_results_log AFTER UPDATE ON webhook_deliveries WHEN NEW.attempts = OLD.attempts BEGIN
      INSERT INTO delivery_results (id, status, attempts, next_attempt_at, last_status_code, last_error, at)
      VALUES (NEW.id, NEW.status, NEW.attempts, NEW.next_attempt_at, NEW.last_status_code, NEW.last_error, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER));
    END;`);
}

/** One logged result of a delivery. */
export interface LoggedResult {
  /** The delivery's key in the store (`webhook_deliveries.id`), not its API id. */
  id: number;
  status: string;
  attempts: number;
  nextAttemptAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  /** When it was written (epoch ms, SQLite's clock: the machine's, as the dispatcher's). */
  at: number;
}

/** The logged results, in order (of one delivery, by its key, when named). */
export function loggedResults(raw: Database.Database, deliveryKey?: number): LoggedResult[] {
  return raw
    .prepare(
      `SELECT id, status, attempts, next_attempt_at AS nextAttemptAt, last_status_code AS lastStatusCode, last_error AS lastError, at FROM delivery_results
       ${deliveryKey === undefined ? "" : "WHERE id = ?"} ORDER BY seq`,
    )
    .all(...(deliveryKey === undefined ? [] : [deliveryKey])) as LoggedResult[];
}

/** One request the receiver saw, with whether its signature verified. */
export interface Received {
  id: string;
  timestamp: string;
  body: string;
  verified: boolean;
  payload: unknown;
  /** When the request arrived (epoch ms, this process's clock, which the dispatcher shares). */
  at: number;
}

/**
 * A real HTTP endpoint on 127.0.0.1 that verifies every request's Standard Webhooks
 * signature with the `standardwebhooks` package and answers `status(request)` (default 204).
 */
export async function startReceiver(secret: () => string, status: (request: Received) => number = () => 204, port = 0): Promise<{ url: string; port: number; received: Received[]; server: Server; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = req.headers as IncomingHttpHeaders & Record<string, string>;
      let verified = false;
      let payload: unknown;
      try {
        payload = new Webhook(secret()).verify(body, headers);
        verified = true;
      } catch {
        verified = false;
      }
      const request = { id: headers["webhook-id"], timestamp: headers["webhook-timestamp"], body, verified, payload, at };
      received.push(request);
      res.statusCode = verified ? status(request) : 401;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}/hooks`,
    port: actual,
    received,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Polls `check` until it returns true (or fails the test after `ms`). */
export async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
