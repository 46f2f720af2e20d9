import type { FilterClause, ListQuery, ListSpec } from "../../contract/list-query.js";
import { checkListQuery, LIST_SPECS } from "../../contract/list-query.js";
import { listRows, type RowPage } from "./list-sql.js";
import type { Dialect, Sql } from "./sql.js";
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
  /** Epoch ms of the first failed attempt since the last success; null while it succeeds. */
  failingSince: number | null;
  disabledAt: string | null;
  disabledReason: string | null;
}

/**
 * A delivery's status as stored. The API calls `delivered` `succeeded` (webhook-view.ts);
 * the stored spelling is the one every release wrote.
 */
export type StoredDeliveryStatus = "pending" | "delivered" | "failed";
const STORED_DELIVERY_STATUSES: readonly StoredDeliveryStatus[] = ["pending", "delivered", "failed"];

/** One outbox row: an event owed to one webhook. */
export interface DeliveryRow {
  id: string;
  webhookId: string;
  messageId: string;
  eventType: string;
  status: StoredDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  /** Epoch milliseconds; also the claim lease while an attempt is in flight. */
  nextAttemptAt: number | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** The webhook a claimed delivery goes to, as the attempt needs it. */
export interface ClaimedHook {
  url: string;
  secret: string;
  disabled: boolean;
  failingSince: number | null;
}

/** A delivery claimed for one attempt, with what the attempt needs to send it. */
export interface ClaimedDelivery {
  /** The store's key of the delivery row (what settles it). */
  id: string;
  /** The webhook's id. */
  webhookId: string;
  messageId: string;
  payload: string;
  /** The attempt number this claim is; with `leaseUntil` it fences the result write. */
  attempts: number;
  /** The lease this claim wrote into `next_attempt_at`: a later claim writes another. */
  leaseUntil: number;
  /** Null when the webhook was deleted. */
  hook: ClaimedHook | null;
}

/** What an attempt's result writes. */
export interface SettleResult {
  status: StoredDeliveryStatus;
  statusCode: number | null;
  error: string | null;
  nextAttemptAt: number | null;
  deliveredAt: string | null;
}

/** The error a delivery of a disabled webhook carries (it is kept, failed, for recovery). */
export const DISABLED_ERROR = "webhook disabled";

const webhookCols = (d: Dialect) => `w.uuid AS id, ws.name AS workspace, w.url, w.events, w.description, w.secret, w.created_at AS "createdAt",
  ${d.epochMs("w.failing_since")} AS "failingSince", w.disabled_at AS "disabledAt", w.disabled_reason AS "disabledReason"`;
const WEBHOOK_FROM = "webhooks w JOIN workspaces ws ON ws.id = w.workspace_id";
const deliveryCols = (d: Dialect) => `d.uuid AS id, w.uuid AS "webhookId", d.message_id AS "messageId", d.event_type AS "eventType", d.status, d.attempts,
  d.last_status_code AS "lastStatusCode", d.last_error AS "lastError", ${d.epochMs("d.next_attempt_at")} AS "nextAttemptAt", d.created_at AS "createdAt",
  d.delivered_at AS "deliveredAt"`;
const DELIVERY_FROM = "webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id";
/** A webhook by id, as a scalar subquery (the next `?`). */
const HOOK = "(SELECT id FROM webhooks WHERE uuid = ?)";

type StoredWebhook = Omit<WebhookRow, "events"> & { events: string };
const parseWebhook = (r: StoredWebhook): WebhookRow => ({ ...r, events: JSON.parse(r.events) as string[], failingSince: r.failingSince === null ? null : Number(r.failingSince) });
const toDelivery = (r: DeliveryRow): DeliveryRow => ({
  ...r,
  messageId: `msg_${r.messageId}`,
  attempts: Number(r.attempts),
  lastStatusCode: r.lastStatusCode === null ? null : Number(r.lastStatusCode),
  nextAttemptAt: r.nextAttemptAt === null ? null : Number(r.nextAttemptAt),
});

/**
 * The deliveries list in stored words. A query is checked in the API's words first
 * (LIST_SPECS.deliveries: `delivered` is a 400 there), then translated and read with this.
 */
const STORED_DELIVERIES: ListSpec = { ...LIST_SPECS.deliveries, kinds: { ...LIST_SPECS.deliveries.kinds, status: STORED_DELIVERY_STATUSES } };

/** `succeeded` (the API's word) is stored as `delivered`. */
const storedStatus = (value: string): string =>
  value
    .split(",")
    .map((v) => (v.trim() === "succeeded" ? "delivered" : v.trim()))
    .join(",");
const toStoredFilters = (filters: FilterClause[] | undefined): FilterClause[] | undefined =>
  filters?.map((f) => (f.field === "status" && f.op !== "contains" ? { ...f, value: storedStatus(f.value) } : f));

/**
 * Disables a webhook (unless it is disabled or deleted already, or `failingBefore` is given
 * and it has not been failing since then) and fails its pending deliveries, which are kept
 * for `recover`. Answers whether it was this call that disabled it.
 */
async function disable(db: Sql, id: string, at: string, reason: string, failingBefore?: number): Promise<boolean> {
  return db.tx(async (tx) => {
    const d = tx.dialect;
    const failing = failingBefore === undefined ? "" : " AND failing_since IS NOT NULL AND failing_since <= ?";
    const params = [d.time(at), reason, d.uuid(id), ...(failingBefore === undefined ? [] : [d.time(failingBefore)])];
    const changed = await tx.run(`UPDATE webhooks SET disabled_at = ?, disabled_reason = ? WHERE uuid = ? AND disabled_at IS NULL AND deleted_at IS NULL${failing}`, params);
    if (changed === 0) return false;
    // Served by webhook_deliveries_by_hook_status.
    await tx.run(`UPDATE webhook_deliveries SET status = 'failed', last_error = ?, next_attempt_at = NULL WHERE webhook_id = ${HOOK} AND status = 'pending'`, [
      DISABLED_ERROR,
      d.uuid(id),
    ]);
    return true;
  });
}

/** Webhook subscriptions and their deliveries, scoped to one workspace (the service side). */
export function createWebhookRepo(db: Sql, workspace: string) {
  const d = db.dialect;
  const WEBHOOK_COLS = webhookCols(d);
  const DELIVERY_COLS = deliveryCols(d);
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
      const r = await db.get<StoredWebhook>(`SELECT ${WEBHOOK_COLS} FROM ${WEBHOOK_FROM} WHERE w.uuid = ? AND ws.name = ? AND w.deleted_at IS NULL`, [d.uuid(id), workspace]);
      return r ? parseWebhook(r) : undefined;
    },
    /**
     * Soft-deletes a webhook. Its pending deliveries fail at once: nobody may receive
     * them any more, and the dispatcher should not keep claiming them.
     */
    async softDelete(id: string, now: string): Promise<void> {
      await db.run("UPDATE webhooks SET deleted_at = ? WHERE uuid = ?", [d.time(now), d.uuid(id)]);
      await db.run(`UPDATE webhook_deliveries SET status = 'failed', last_error = 'webhook deleted', next_attempt_at = NULL WHERE webhook_id = ${HOOK} AND status = 'pending'`, [
        d.uuid(id),
      ]);
    },
    /** Disables a webhook by request; its pending deliveries fail and are kept for `recover`. */
    disable(id: string, at: string, reason: string): Promise<boolean> {
      return disable(db, id, at, reason);
    },
    /** Enables a webhook again, with a clean failure record (the days-of-failures clock restarts). */
    async enable(id: string): Promise<void> {
      await db.run("UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL WHERE uuid = ?", [d.uuid(id)]);
    },
    async list(query: ListQuery): Promise<RowPage<WebhookRow>> {
      const page = await listRows<StoredWebhook>(
        db,
        {
          select: WEBHOOK_COLS,
          from: WEBHOOK_FROM,
          where: `w.workspace_id = ${WORKSPACE} AND w.deleted_at IS NULL`,
          params: [workspace],
          id: "w.uuid",
          columns: {
            url: { sql: "w.url", kind: "text" },
            status: { sql: "(CASE WHEN w.disabled_at IS NULL THEN 'enabled' ELSE 'disabled' END)", kind: "text" },
            createdAt: { sql: "w.created_at", kind: "time" },
          },
        },
        LIST_SPECS.webhooks,
        query,
      );
      return { ...page, rows: page.rows.map(parseWebhook) };
    },
    /** A webhook's deliveries; a status filter is served by webhook_deliveries_by_hook_status. */
    async listDeliveries(webhookId: string, query: ListQuery): Promise<RowPage<DeliveryRow>> {
      checkListQuery(LIST_SPECS.deliveries, query);
      const page = await listRows<DeliveryRow>(
        db,
        {
          select: DELIVERY_COLS,
          from: DELIVERY_FROM,
          where: `w.uuid = ? AND w.workspace_id = ${WORKSPACE}`,
          params: [d.uuid(webhookId), workspace],
          id: "d.uuid",
          columns: {
            status: { sql: "d.status", kind: "text" },
            eventType: { sql: "d.event_type", kind: "text" },
            createdAt: { sql: "d.created_at", kind: "time" },
          },
        },
        STORED_DELIVERIES,
        { ...query, filters: toStoredFilters(query.filters) },
      );
      return { ...page, rows: page.rows.map(toDelivery) };
    },
    /** One delivery of one webhook of this workspace. */
    async getDelivery(webhookId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
      const row = await db.get<DeliveryRow>(`SELECT ${DELIVERY_COLS} FROM ${DELIVERY_FROM} WHERE d.uuid = ? AND w.uuid = ? AND w.workspace_id = ${WORKSPACE}`, [
        d.uuid(deliveryId),
        d.uuid(webhookId),
        workspace,
      ]);
      return row ? toDelivery(row) : undefined;
    },
    /**
     * Makes a settled delivery pending again, due at `now`, on a fresh schedule (attempts
     * from 0), keeping its message id. A pending one is left alone: it is owed already, and
     * may be in flight. Answers whether it changed.
     */
    async redeliver(webhookId: string, deliveryId: string, now: number): Promise<boolean> {
      const changed = await db.run(
        `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, delivered_at = NULL
         WHERE uuid = ? AND webhook_id = ${HOOK} AND status <> 'pending'`,
        [d.time(now), d.uuid(deliveryId), d.uuid(webhookId)],
      );
      if (changed > 0) db.signal("outbox");
      return changed > 0;
    },
    /**
     * Makes every failed delivery of a webhook created in [since, until) pending again, due
     * at `now`, as `redeliver` does. Served by webhook_deliveries_by_hook_status.
     */
    async recover(webhookId: string, since: string, until: string | null, now: number): Promise<number> {
      const changed = await db.run(
        `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?
         WHERE webhook_id = ${HOOK} AND status = 'failed' AND created_at >= ?${until === null ? "" : " AND created_at < ?"}`,
        [d.time(now), d.uuid(webhookId), d.time(since), ...(until === null ? [] : [d.time(until)])],
      );
      if (changed > 0) db.signal("outbox");
      return changed;
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
    /** Live webhooks of `workspace` subscribed to `eventType`, by key (disabled ones too: their events are kept). */
    async subscribers(workspace: string, eventType: string): Promise<{ key: number; disabled: boolean }[]> {
      const rows = await db.all<{ key: number; disabled: number | boolean }>(
        `SELECT w.id AS key, (w.disabled_at IS NOT NULL) AS disabled FROM webhooks w
         WHERE w.workspace_id = ${WORKSPACE} AND w.deleted_at IS NULL AND ${d.jsonArrayHas("w.events")} ORDER BY w.id`,
        [workspace, eventType],
      );
      return rows.map((r) => ({ key: Number(r.key), disabled: Boolean(r.disabled) }));
    },
    /**
     * Writes one delivery, due at once, and wakes the dispatchers; for a disabled webhook it
     * is written failed (kept for `recover`, nothing to wake). Call inside the causing transaction.
     */
    async enqueue(row: { id: string; webhookKey: number; messageId: string; eventType: string; payload: string; createdAt: string; dueAt: number; disabled?: boolean }): Promise<void> {
      const [status, due, error] = row.disabled ? ["failed", null, DISABLED_ERROR] : ["pending", row.dueAt, null];
      await db.run(
        `INSERT INTO webhook_deliveries (uuid, webhook_id, message_id, event_type, payload, status, attempts, next_attempt_at, last_error, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
        [d.uuid(row.id), row.webhookKey, d.uuid(row.messageId), row.eventType, row.payload, status, d.time(due), error, d.time(row.createdAt)],
      );
      if (!row.disabled) db.signal("outbox");
    },
    /**
     * Claims up to `limit` due deliveries for one attempt each, atomically: the UPDATE
     * counts the attempt and pushes `next_attempt_at` to the lease end, so no other
     * dispatcher (in this process or on another node) claims them until the lease runs out
     * (a crashed sender's row comes back). On PostgreSQL rows another node is claiming are
     * skipped, not waited for. Served by webhook_deliveries_due, in its order: a tie-break
     * on id would sort every due row for each claim (a backlog of n would cost n² to drain).
     */
    claimDue(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]> {
      return db.tx(async (tx) => {
        const rows = await tx.all<{ key: number; webhookKey: number; messageId: string; payload: string; attempts: number }>(
          `UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?
           WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?
             ORDER BY next_attempt_at LIMIT ? ${tx.dialect.skipLocked})
           RETURNING id AS key, webhook_id AS "webhookKey", message_id AS "messageId", payload, attempts`,
          [d.time(leaseUntil), d.time(now), limit],
        );
        if (rows.length === 0) return [];
        const keys = [...new Set(rows.map((r) => Number(r.webhookKey)))];
        const hooks = await tx.all<{ key: number; id: string; url: string; secret: string; disabled: number | boolean; failingSince: number | null }>(
          `SELECT id AS key, uuid AS id, url, secret, (disabled_at IS NOT NULL) AS disabled, ${d.epochMs("failing_since")} AS "failingSince"
           FROM webhooks WHERE deleted_at IS NULL AND id IN (${keys.map(() => "?").join(", ")})`,
          keys,
        );
        const byKey = new Map(hooks.map((h) => [Number(h.key), h]));
        return rows.map((r) => {
          const h = byKey.get(Number(r.webhookKey));
          return {
            id: String(r.key),
            webhookId: h?.id ?? "",
            messageId: `msg_${r.messageId}`,
            payload: r.payload,
            attempts: Number(r.attempts),
            leaseUntil,
            hook: h ? { url: h.url, secret: h.secret, disabled: Boolean(h.disabled), failingSince: h.failingSince === null ? null : Number(h.failingSince) } : null,
          };
        });
      });
    },
    /**
     * Records an attempt's result. Fenced by the attempt number and the lease: if this
     * claim ran out and another sender took the row (or it was redelivered and claimed
     * again), the stale result is dropped (false).
     */
    async settle(claim: Pick<ClaimedDelivery, "id" | "attempts" | "leaseUntil">, result: SettleResult): Promise<boolean> {
      const changed = await db.run(
        `UPDATE webhook_deliveries SET status = ?, last_status_code = ?, last_error = ?, next_attempt_at = ?, delivered_at = ?
         WHERE id = ? AND attempts = ? AND next_attempt_at = ? AND status = 'pending'`,
        [
          result.status,
          result.statusCode,
          result.error,
          d.time(result.nextAttemptAt),
          d.time(result.deliveredAt),
          Number(claim.id),
          claim.attempts,
          d.time(claim.leaseUntil),
        ],
      );
      return changed === 1;
    },
    /** The earliest `next_attempt_at` of a pending delivery (a lease end when it is in flight). Served by webhook_deliveries_due. */
    async nextDue(): Promise<number | undefined> {
      const row = await db.get<{ at: number | null }>(`SELECT ${d.epochMs("MIN(next_attempt_at)")} AS at FROM webhook_deliveries WHERE status = 'pending'`);
      return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
    },
    /** A failed attempt: starts the webhook's failing clock unless it runs already. */
    async failing(webhookId: string, at: number): Promise<void> {
      await db.run("UPDATE webhooks SET failing_since = ? WHERE uuid = ? AND failing_since IS NULL", [d.time(at), d.uuid(webhookId)]);
    },
    /** A successful attempt: stops the webhook's failing clock. */
    async succeeding(webhookId: string): Promise<void> {
      await db.run("UPDATE webhooks SET failing_since = NULL WHERE uuid = ?", [d.uuid(webhookId)]);
    },
    /** Disables a webhook that has been failing since `failingBefore` or earlier (and still is). */
    disableFailing(webhookId: string, at: string, reason: string, failingBefore: number): Promise<boolean> {
      return disable(db, webhookId, at, reason, failingBefore);
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
