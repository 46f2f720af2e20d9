import type { ListQuery } from "../../contract/list-query.js";
import { LIST_SPECS } from "../../contract/list-query.js";
import { listRows, type RowPage } from "./list-sql.js";
import type { Sql } from "./sql.js";

/** A webhook subscription as stored (`events` already parsed). */
export interface WebhookRow {
  id: string;
  workspace: string;
  url: string;
  events: string[];
  description: string;
  secret: string;
  createdAt: string;
}

/** One outbox row: an event owed to one webhook. */
export interface DeliveryRow {
  id: string;
  webhookId: string;
  messageId: string;
  eventType: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  /** Epoch milliseconds; also the claim lease while an attempt is in flight. */
  nextAttemptAt: number | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** A delivery claimed for one attempt, with what the attempt needs to send it. */
export interface ClaimedDelivery {
  id: string;
  messageId: string;
  payload: string;
  /** The attempt number this claim is; it also fences the result write. */
  attempts: number;
  url: string | null;
  secret: string | null;
}

const WEBHOOK_COLS = `w.id, w.workspace, w.url, w.events, w.description, w.secret, w.created_at AS "createdAt"`;
const DELIVERY_COLS = `d.id, d.webhook_id AS "webhookId", d.message_id AS "messageId", d.event_type AS "eventType", d.status, d.attempts,
  d.last_status_code AS "lastStatusCode", d.last_error AS "lastError", d.next_attempt_at AS "nextAttemptAt", d.created_at AS "createdAt",
  d.delivered_at AS "deliveredAt"`;

const parseWebhook = (r: Omit<WebhookRow, "events"> & { events: string }): WebhookRow => ({ ...r, events: JSON.parse(r.events) as string[] });

/** Webhook subscriptions and their deliveries, scoped to one workspace (the service side). */
export function createWebhookRepo(db: Sql, workspace: string) {
  return {
    async insert(row: WebhookRow): Promise<void> {
      await db.run("INSERT INTO webhooks (id, workspace, url, events, description, secret, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [
        row.id,
        workspace,
        row.url,
        JSON.stringify(row.events),
        row.description,
        row.secret,
        row.createdAt,
      ]);
    },
    /** A live webhook of this workspace; undefined when unknown, deleted or foreign. */
    async get(id: string): Promise<WebhookRow | undefined> {
      const r = await db.get<Omit<WebhookRow, "events"> & { events: string }>(
        `SELECT ${WEBHOOK_COLS} FROM webhooks w WHERE w.id = ? AND w.workspace = ? AND w.deleted_at IS NULL`,
        [id.toLowerCase(), workspace],
      );
      return r ? parseWebhook(r) : undefined;
    },
    /**
     * Soft-deletes a webhook. Its pending deliveries fail at once: nobody may receive
     * them any more, and the dispatcher should not keep claiming them.
     */
    async softDelete(id: string, now: string): Promise<void> {
      await db.run("UPDATE webhooks SET deleted_at = ? WHERE id = ?", [now, id]);
      await db.run("UPDATE webhook_deliveries SET status = 'failed', last_error = 'webhook deleted', next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending'", [id]);
    },
    async list(query: ListQuery): Promise<RowPage<WebhookRow>> {
      const page = await listRows<Omit<WebhookRow, "events"> & { events: string }>(
        db,
        {
          select: WEBHOOK_COLS,
          from: "webhooks w",
          where: "w.workspace = ? AND w.deleted_at IS NULL",
          params: [workspace],
          id: "w.id",
          columns: { url: { sql: "w.url", kind: "text" }, createdAt: { sql: "w.created_at", kind: "text" } },
        },
        LIST_SPECS.webhooks,
        query,
      );
      return { ...page, rows: page.rows.map(parseWebhook) };
    },
    listDeliveries(webhookId: string, query: ListQuery): Promise<RowPage<DeliveryRow>> {
      return listRows<DeliveryRow>(
        db,
        {
          select: DELIVERY_COLS,
          from: "webhook_deliveries d",
          where: "d.webhook_id = ? AND d.workspace = ?",
          params: [webhookId, workspace],
          id: "d.id",
          columns: {
            status: { sql: "d.status", kind: "text" },
            eventType: { sql: "d.event_type", kind: "text" },
            createdAt: { sql: "d.created_at", kind: "text" },
          },
        },
        LIST_SPECS.deliveries,
        query,
      );
    },
  };
}

/**
 * The outbox and dispatcher side: not workspace-scoped, like the pipeline worker, since
 * one dispatcher serves every workspace of the database.
 */
export function createDeliveryRepo(db: Sql) {
  return {
    /** Live webhooks of `workspace` subscribed to `eventType`. */
    subscribers(workspace: string, eventType: string): Promise<{ id: string }[]> {
      return db.all<{ id: string }>(
        `SELECT w.id FROM webhooks w WHERE w.workspace = ? AND w.deleted_at IS NULL AND ${db.dialect.jsonArrayHas("w.events")} ORDER BY w.id`,
        [workspace, eventType],
      );
    },
    /** Writes one pending delivery, due at once, and wakes the dispatchers. Call inside the causing transaction. */
    async enqueue(row: { id: string; workspace: string; webhookId: string; messageId: string; eventType: string; payload: string; createdAt: string; dueAt: number }): Promise<void> {
      await db.run(
        `INSERT INTO webhook_deliveries (id, workspace, webhook_id, message_id, event_type, payload, status, attempts, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
        [row.id, row.workspace, row.webhookId, row.messageId, row.eventType, row.payload, row.dueAt, row.createdAt],
      );
      db.signal("outbox");
    },
    /**
     * Claims up to `limit` due deliveries for one attempt each, atomically: the UPDATE
     * counts the attempt and pushes `next_attempt_at` to the lease end, so no other
     * dispatcher (in this process or on another node) claims them until the lease runs out
     * (a crashed sender's row comes back). On PostgreSQL rows another node is claiming are
     * skipped, not waited for.
     */
    claimDue(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]> {
      return db.tx(async (tx) => {
        const rows = await tx.all<{ id: string; webhookId: string; messageId: string; payload: string; attempts: number }>(
          `UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?
           WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?
             ORDER BY next_attempt_at, id LIMIT ? ${tx.dialect.skipLocked})
           RETURNING id, webhook_id AS "webhookId", message_id AS "messageId", payload, attempts`,
          [leaseUntil, now, limit],
        );
        if (rows.length === 0) return [];
        const ids = [...new Set(rows.map((r) => r.webhookId))];
        const hooks = await tx.all<{ id: string; url: string; secret: string }>(
          `SELECT id, url, secret FROM webhooks WHERE deleted_at IS NULL AND id IN (${ids.map(() => "?").join(", ")})`,
          ids,
        );
        const byId = new Map(hooks.map((h) => [h.id, h]));
        return rows.map((r) => {
          const w = byId.get(r.webhookId);
          return { id: r.id, messageId: r.messageId, payload: r.payload, attempts: Number(r.attempts), url: w?.url ?? null, secret: w?.secret ?? null };
        });
      });
    },
    /**
     * Records an attempt's result. Fenced by the attempt number: if this claim's lease ran
     * out and another sender took the row, the stale result is dropped (false).
     */
    async settle(
      claim: { id: string; attempts: number },
      result: { status: "pending" | "delivered" | "failed"; statusCode: number | null; error: string | null; nextAttemptAt: number | null; deliveredAt: string | null },
    ): Promise<boolean> {
      const changed = await db.run(
        `UPDATE webhook_deliveries SET status = ?, last_status_code = ?, last_error = ?, next_attempt_at = ?, delivered_at = ?
         WHERE id = ? AND attempts = ? AND status = 'pending'`,
        [result.status, result.statusCode, result.error, result.nextAttemptAt, result.deliveredAt, claim.id, claim.attempts],
      );
      return changed === 1;
    },
    /** Deliveries still to make, across workspaces: all pending, and those already due at `now` (metrics). */
    async backlog(now: number): Promise<{ pending: number; due: number }> {
      const row = await db.get<{ pending: number; due: number | null }>(
        "SELECT COUNT(*) AS pending, SUM(CASE WHEN next_attempt_at <= ? THEN 1 ELSE 0 END) AS due FROM webhook_deliveries WHERE status = 'pending'",
        [now],
      );
      return { pending: Number(row?.pending ?? 0), due: Number(row?.due ?? 0) };
    },
  };
}

/** The workspace-scoped webhook repository type. */
export type WebhookRepo = ReturnType<typeof createWebhookRepo>;
/** The delivery (outbox) repository type. */
export type DeliveryRepo = ReturnType<typeof createDeliveryRepo>;
