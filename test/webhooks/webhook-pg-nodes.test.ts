import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpClient } from "../../src/client/index.js";
import type { DdsService } from "../../src/contract/service.js";
import type { WebhookDispatcherOptions } from "../../src/engine/webhooks/index.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { startNode, tokenFor, type InProcessNode } from "../helpers/pg-nodes.js";
import { startReceiver, until } from "./support.js";

/**
 * Two serve nodes in this process on one real PostgreSQL, each with its own pool,
 * notification listener and dispatcher, and a real receiver on 127.0.0.1. Every send goes
 * through a fetch that records which node made it. The nodes never poll for work (their
 * idle sleep is an hour): a delivery is found by a notification or by the timer set for
 * its due time.
 */

let cluster: PgCluster;
const nodes: InProcessNode[] = [];
const clients: DdsService[] = [];
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  for (const c of clients) await c.close();
  for (const n of nodes) await n.close();
  await cluster?.stop();
});

/** One send: the node that made it and the message's webhook-id. */
interface Send {
  node: string;
  id: string;
}

/** Two nodes on a new database, their sends recorded, and a client per node. */
async function twoNodes(webhooks: WebhookDispatcherOptions): Promise<{ url: string; sends: Send[]; a: DdsService; b: DdsService; db: postgres.Sql }> {
  const url = await cluster.createDatabase();
  const sends: Send[] = [];
  const recorded = (node: string): typeof fetch => (input, init) => {
    sends.push({ node, id: (init?.headers as Record<string, string>)["webhook-id"] });
    return fetch(input, init);
  };
  for (const name of ["a", "b"]) nodes.push(await startNode(url, { webhooks: { idleMs: 3_600_000, ...webhooks, fetch: recorded(name) } }));
  const token = await tokenFor(url, "admin");
  const [a, b] = nodes.slice(-2).map((n) => createHttpClient({ baseUrl: `${n.origin}/v1`, token }));
  clients.push(a, b);
  const db = postgres(url, { max: 1, onnotice: () => undefined });
  // Every result written to a delivery (a claim changes the attempt count and is not logged),
  // by the delivery's key, with its due time (timestamptz) as epoch ms like the receiver's clock.
  await db.unsafe(`
    CREATE TABLE delivery_results (seq BIGSERIAL PRIMARY KEY, id BIGINT, status TEXT, attempts INT, next_attempt_at BIGINT, at BIGINT);
    CREATE FUNCTION log_delivery_result() RETURNS trigger AS $$ BEGIN
      IF NEW.attempts = OLD.attempts THEN
        INSERT INTO delivery_results (id, status, attempts, next_attempt_at, at)
        VALUES (NEW.id, NEW.status, NEW.attempts, (extract(epoch FROM NEW.next_attempt_at) * 1000)::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint);
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql;
    CREATE TRIGGER delivery_results_log AFTER UPDATE ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION log_delivery_result();`);
  return { url, sends, a, b, db };
}

/** `count` lifecycle moves of one context, each a `context.status_changed` delivery. */
async function moves(s: DdsService, count: number): Promise<void> {
  const { contextId } = await s.createContext({});
  for (let i = 0; i < count; i++) await s.setContextStatus(contextId, i % 2 === 0 ? "completed" : "active");
}

describe("webhooks on two serve nodes on one PostgreSQL", () => {
  it("each attempt is sent by one node only; every retry after its stored due time; a delivery is settled once", async () => {
    const { sends, a, b, db } = await twoNodes({ retryDelaysMs: [300, 300, 300, 300] });
    // Every message fails twice, then is accepted.
    let secret = "";
    const rx = await startReceiver(
      () => secret,
      (request) => (rx.received.filter((r) => r.id === request.id).length <= 2 ? 500 : 204),
    );
    try {
      const hook = await a.createWebhook({ url: rx.url, events: ["context.status_changed"] });
      secret = hook.secret!;
      await moves(b, 12);
      await until(async () => (await a.listWebhookDeliveries(hook.webhookId, { filters: [{ field: "status", op: "eq", value: "succeeded" }] })).data.length === 12, 60_000);
      // The message id (a uuid) as the webhook-id header spells it.
      const rows = await db.unsafe<{ id: string; messageId: string; attempts: number }[]>(`SELECT id, 'msg_' || message_id AS "messageId", attempts FROM webhook_deliveries`);
      expect(rows.every((r) => r.attempts === 3)).toBe(true);
      // As many sends as attempts were counted: no attempt was made twice, by one node or two.
      expect(sends).toHaveLength(36);
      expect(rx.received).toHaveLength(36);
      expect(rx.received.every((r) => r.verified)).toBe(true);
      for (const r of rows) expect(sends.filter((x) => x.id === r.messageId)).toHaveLength(3);
      const results = await db.unsafe<{ id: string; status: string; attempts: number; nextAttemptAt: number | null }[]>(
        `SELECT id, status, attempts, next_attempt_at AS "nextAttemptAt" FROM delivery_results ORDER BY seq`,
      );
      for (const r of rows) {
        const mine = results.filter((x) => x.id === r.id);
        expect(mine.map((x) => [x.attempts, x.status])).toEqual([[1, "pending"], [2, "pending"], [3, "delivered"]]);
        const hits = rx.received.filter((x) => x.id === r.messageId).map((x) => x.at);
        expect(hits[1]).toBeGreaterThanOrEqual(Number(mine[0].nextAttemptAt));
        expect(hits[2]).toBeGreaterThanOrEqual(Number(mine[1].nextAttemptAt));
      }
    } finally {
      await db.end();
      await rx.close();
    }
  });

  it("a redelivery asked of one node is sent at once by a dispatcher the notification woke (no node polls)", async () => {
    const { sends, a, b, db } = await twoNodes({});
    let secret = "";
    const rx = await startReceiver(() => secret);
    try {
      const hook = await b.createWebhook({ url: rx.url, events: ["context.status_changed"] });
      secret = hook.secret!;
      await moves(a, 1);
      await until(() => rx.received.length === 1);
      const [d] = (await b.listWebhookDeliveries(hook.webhookId)).data;
      await until(async () => (await b.listWebhookDeliveries(hook.webhookId)).data[0].status === "succeeded");
      expect(await a.redeliverWebhookDelivery(hook.webhookId, d.deliveryId)).toMatchObject({ status: "pending", messageId: d.messageId });
      await until(() => rx.received.length === 2);
      expect(rx.received.map((r) => r.id)).toEqual([d.messageId, d.messageId]);
      expect(rx.received.every((r) => r.verified)).toBe(true);
      expect(sends).toHaveLength(2);
    } finally {
      await db.end();
      await rx.close();
    }
  });

  it("a webhook failing past disableAfterMs is disabled, its deliveries kept; enabled and recovered on the other node, they arrive", async () => {
    const { a, b, db } = await twoNodes({ retryDelaysMs: Array.from({ length: 20 }, () => 200), disableAfterMs: 1_000 });
    let answer = 503;
    let secret = "";
    const rx = await startReceiver(
      () => secret,
      () => answer,
    );
    try {
      const hook = await a.createWebhook({ url: rx.url, events: ["context.status_changed"] });
      secret = hook.secret!;
      await moves(b, 3);
      await until(async () => (await b.getWebhook(hook.webhookId)).status === "disabled", 60_000);
      const disabled = await a.getWebhook(hook.webhookId);
      expect(disabled.disabledReason).toMatch(/^every attempt failed for \d+ (ms|second|seconds) \(since .+Z\); last: HTTP 503 Service Unavailable$/);
      expect(Date.parse(disabled.disabledAt!) - Date.parse(disabled.failingSince!)).toBeGreaterThanOrEqual(1_000);
      const kept = (await a.listWebhookDeliveries(hook.webhookId)).data;
      expect(kept.map((d) => [d.status, d.lastError])).toEqual(Array.from({ length: 3 }, () => ["failed", "webhook disabled"]));
      expect((await db.unsafe(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`))[0].n).toBe(0);
      answer = 204;
      await b.setWebhookStatus(hook.webhookId, "enabled");
      expect((await a.recoverWebhookDeliveries(hook.webhookId, { since: kept[0].createdAt })).recovered).toBe(3);
      await until(async () => (await b.listWebhookDeliveries(hook.webhookId, { filters: [{ field: "status", op: "eq", value: "succeeded" }] })).data.length === 3, 60_000);
      const delivered = new Set(rx.received.filter((r) => r.verified).map((r) => r.id));
      expect([...delivered].sort()).toEqual(kept.map((d) => d.messageId).sort());
    } finally {
      await db.end();
      await rx.close();
    }
  });
});
