import type { ListQuery } from "../../contract/list-query.js";
import { LIST_SPECS } from "../../contract/list-query.js";
import { listRows, type RowPage } from "./list-sql.js";
import type { Sql } from "./sql.js";
import { WORKSPACE } from "./workspace-sql.js";

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
  /** The store's key of the delivery row (what settles it). */
  id: string;
  messageId: string;
  payload: string;
  /** The attempt number this claim is; it also fences the result write. */
  attempts: number;
  url: string | null;
  secret: string | null;
}

const WEBHOOK_COLS = `w.uuid AS id, ws.name AS workspace, w.url, w.events, w.description, w.secret, w.created_at AS "createdAt"`;
const WEBHOOK_FROM = "webhooks w JOIN workspaces ws ON ws.id = w.workspace_id";
const deliveryCols = (d: Sql["dialect"]) => `d.uuid AS id, w.uuid AS "webhookId", d.message_id AS "messageId", d.event_type AS "eventType", d.status, d.attempts,
  d.last_status_code AS "lastStatusCode", d.last_error AS "lastError", ${d.epochMs("d.next_attempt_at")} AS "nextAttemptAt", d.created_at AS "createdAt",
  d.delivered_at AS "deliveredAt"`;

type RawWebhook = Omit<WebhookRow, "events"> & { events: string };
const parseWebhook = (r: RawWebhook): WebhookRow => ({ ...r, events: JSON.parse(r.events) as string[] });
const toDelivery = (r: DeliveryRow): DeliveryRow => ({
  ...r,
  messageId: `msg_${r.messageId}`,
  attempts: Number(r.attempts),
  lastStatusCode: r.lastStatusCode === null ? null : Number(r.lastStatusCode),
  nextAttemptAt: r.nextAttemptAt === null ? null : Number(r.nextAttemptAt),
});

/** Webhook subscriptions and their deliveries, scoped to one workspace (the service side). */
export function createWebhookRepo(db: Sql, workspace: string) {
  const d = db.dialect;
  return {
    async insert(row: WebhookRow): Promise<void> {
      await db.run(`INSERT INTO webhooks (uuid, workspace_id, url, events, description, secret, created_at) VALUES (?, ${WORKSPACE}, ?, ?, ?, ?, ?)`, [
        d.uuid(row.id),
        workspace,
        row.url,
        JSON.stringify(row.events),
        row.description,
        row.secret,
        d.time(row.createdAt),
      ]);
    },
    /** A live webhook of this workspace; undefined when unknown, deleted or foreign. */
    async get(id: string): Promise<WebhookRow | undefined> {
      const r = await db.get<RawWebhook>(`SELECT ${WEBHOOK_COLS} FROM ${WEBHOOK_FROM} WHERE w.uuid = ? AND ws.name = ? AND w.deleted_at IS NULL`, [d.uuid(id), workspace]);
      return r ? parseWebhook(r) : undefined;
    },
    /**
     * Soft-deletes a webhook. Its pending deliveries fail at once: nobody may receive
     * them any more, and the dispatcher should not keep claiming them.
     */
    async softDelete(id: string, now: string): Promise<void> {
      await db.run("UPDATE webhooks SET deleted_at = ? WHERE uuid = ?", [d.time(now), d.uuid(id)]);
      await db.run(
        `UPDATE webhook_deliveries SET status = 'failed', last_error = 'webhook deleted', next_attempt_at = NULL
         WHERE webhook_id = (SELECT id FROM webhooks WHERE uuid = ?) AND status = 'pending'`,
        [d.uuid(id)],
      );
    },
    async list(query: ListQuery): Promise<RowPage<WebhookRow>> {
      const page = await listRows<RawWebhook>(
        db,
        {
          select: WEBHOOK_COLS,
          from: WEBHOOK_FROM,
          where: `w.workspace_id = ${WORKSPACE} AND w.deleted_at IS NULL`,
          params: [workspace],
          id: "w.uuid",
          columns: { url: { sql: "w.url", kind: "text" }, createdAt: { sql: "w.created_at", kind: "time" } },
        },
        LIST_SPECS.webhooks,
        query,
      );
      return { ...page, rows: page.rows.map(parseWebhook) };
    },
    async listDeliveries(webhookId: string, query: ListQuery): Promise<RowPage<DeliveryRow>> {
      const page = await listRows<DeliveryRow>(
        db,
        {
          select: deliveryCols(d),
          from: "webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id",
          where: `w.uuid = ? AND w.workspace_id = ${WORKSPACE}`,
          params: [d.uuid(webhookId), workspace],
          id: "d.uuid",
          columns: {
            status: { sql: "d.status", kind: "text" },
            eventType: { sql: "d.event_type", kind: "text" },
            createdAt: { sql: "d.created_at", kind: "time" },
          },
        },
        LIST_SPECS.deliveries,
        query,
      );
      return { ...page, rows: page.rows.map(toDelivery) };
    },
  };
}

/**
 * The outbox and dispatcher side: not workspace-scoped, like the pipeline worker, since
 * one dispatcher serves every workspace of the database.
 */
export function createDeliveryRepo(db: Sql) {
  const d = db.dialect;
  return {
    /** Live webhooks of `workspace` subscribed to `eventType`: their keys. */
    async subscribers(workspace: string, eventType: string): Promise<{ key: number }[]> {
      const rows = await db.all<{ key: number }>(
        `SELECT w.id AS key FROM webhooks w WHERE w.workspace_id = ${WORKSPACE} AND w.deleted_at IS NULL AND ${d.jsonArrayHas("w.events")} ORDER BY w.id`,
        [workspace, eventType],
      );
      return rows.map((r) => ({ key: Number(r.key) }));
    },
    /** The evaluation of a rule in a context (its id and the rule's name), for `evaluation.changed`. */
    async evaluationOf(contextId: string, ruleId: string): Promise<{ evaluationId: string | null; ruleName: string | null }> {
      const rule = await db.get<{ key: number; name: string }>("SELECT id AS key, name FROM rules WHERE uuid = ?", [d.uuid(ruleId)]);
      const row = rule
        ? await db.get<{ id: string }>("SELECT uuid AS id FROM evaluations WHERE context_id = (SELECT id FROM contexts WHERE uuid = ?) AND rule_id = ?", [d.uuid(contextId), rule.key])
        : undefined;
      return { evaluationId: row?.id ?? null, ruleName: rule?.name ?? null };
    },
    /** When a context was last resolved, for `context.resolved`. */
    async resolvedAt(contextId: string): Promise<string | null> {
      const row = await db.get<{ resolvedAt: string | null }>(`SELECT resolved_at AS "resolvedAt" FROM contexts WHERE uuid = ?`, [d.uuid(contextId)]);
      return row?.resolvedAt ?? null;
    },
    /** Writes one pending delivery, due at once, and wakes the dispatchers. Call inside the causing transaction. */
    async enqueue(row: { id: string; webhookKey: number; messageId: string; eventType: string; payload: string; createdAt: string; dueAt: number }): Promise<void> {
      await db.run(
        `INSERT INTO webhook_deliveries (uuid, webhook_id, message_id, event_type, payload, status, attempts, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
        [d.uuid(row.id), row.webhookKey, d.uuid(row.messageId), row.eventType, row.payload, d.time(row.dueAt), d.time(row.createdAt)],
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
        const rows = await tx.all<{ key: number; webhookKey: number; messageId: string; payload: string; attempts: number }>(
          `UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?
           WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?
             ORDER BY next_attempt_at, id LIMIT ? ${tx.dialect.skipLocked})
           RETURNING id AS key, webhook_id AS "webhookKey", message_id AS "messageId", payload, attempts`,
          [d.time(leaseUntil), d.time(now), limit],
        );
        if (rows.length === 0) return [];
        const keys = [...new Set(rows.map((r) => Number(r.webhookKey)))];
        const hooks = await tx.all<{ key: number; url: string; secret: string }>(
          `SELECT id AS key, url, secret FROM webhooks WHERE deleted_at IS NULL AND id IN (${keys.map(() => "?").join(", ")})`,
          keys,
        );
        const byKey = new Map(hooks.map((h) => [Number(h.key), h]));
        return rows.map((r) => {
          const w = byKey.get(Number(r.webhookKey));
          return { id: String(r.key), messageId: `msg_${r.messageId}`, payload: r.payload, attempts: Number(r.attempts), url: w?.url ?? null, secret: w?.secret ?? null };
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
        [result.status, result.statusCode, result.error, d.time(result.nextAttemptAt), d.time(result.deliveredAt), Number(claim.id), claim.attempts],
      );
      return changed === 1;
    },
    /** Deliveries still to make, across workspaces: all pending, and those already due at `now` (metrics). */
    async backlog(now: number): Promise<{ pending: number; due: number }> {
      const row = await db.get<{ pending: number; due: number | null }>(
        "SELECT COUNT(*) AS pending, SUM(CASE WHEN next_attempt_at <= ? THEN 1 ELSE 0 END) AS due FROM webhook_deliveries WHERE status = 'pending'",
        [d.time(now)],
      );
      return { pending: Number(row?.pending ?? 0), due: Number(row?.due ?? 0) };
    },
  };
}

/** The workspace-scoped webhook repository type. */
export type WebhookRepo = ReturnType<typeof createWebhookRepo>;
/** The delivery (outbox) repository type. */
export type DeliveryRepo = ReturnType<typeof createDeliveryRepo>;
