import { beforeAll, describe, expect, it } from "vitest";
import type { DdsService } from "../../src/contract/service.js";

async function failure(p: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await p;
  } catch (err) {
    return err as { status: number; code: string };
  }
  throw new Error("expected the call to fail");
}

/**
 * Webhook status, deliveries by status, redeliver and recover, written against the
 * DdsService contract only: the same answers from the local engine and over HTTP (where a
 * dispatcher runs). The endpoint refuses connections, so a delivery the dispatcher tries
 * stays pending (its next attempt is seconds away), whoever looks and whenever.
 */
export function webhookSuite(name: string, open: () => Promise<DdsService>): void {
  describe(`webhook deliveries (${name})`, () => {
    let s: DdsService;
    let hookId = "";
    let contextId = "";
    const byStatus = async (status: string) => (await s.listWebhookDeliveries(hookId, { filters: [{ field: "status", op: "eq", value: status }] })).data;

    beforeAll(async () => {
      s = await open();
      hookId = (await s.createWebhook({ url: "http://127.0.0.1:9/unreachable", events: ["context.status_changed"] })).webhookId;
      contextId = (await s.createContext({ name: "hooked" })).contextId;
    });

    it("shows a webhook's status and lists its deliveries by status", async () => {
      expect(await s.getWebhook(hookId)).toMatchObject({ status: "enabled", disabledReason: null, disabledAt: null });
      await s.setContextStatus(contextId, "completed");
      const [pending] = await byStatus("pending");
      expect(pending).toMatchObject({ webhookId: hookId, eventType: "context.status_changed", status: "pending", messageId: expect.stringMatching(/^msg_/) });
      for (const status of ["failed", "succeeded"]) expect(await byStatus(status), status).toEqual([]);
      // Only the statuses the interface enumerates: `sent`, and `delivered` (what `succeeded` was called), are 400s.
      for (const value of ["sent", "delivered"]) {
        expect(await failure(s.listWebhookDeliveries(hookId, { filters: [{ field: "status", op: "eq", value }] })), value).toMatchObject({ status: 400 });
      }
      // Already owed: a redelivery leaves it pending, one row.
      expect(await s.redeliverWebhookDelivery(hookId, pending.deliveryId)).toMatchObject({ deliveryId: pending.deliveryId, messageId: pending.messageId, status: "pending" });
      expect((await s.listWebhookDeliveries(hookId)).data).toHaveLength(1);
    });

    it("a disabled webhook keeps its events as failed deliveries and refuses redelivery until enabled", async () => {
      const disabled = await s.setWebhookStatus(hookId, "disabled");
      expect(disabled).toMatchObject({ status: "disabled", disabledReason: "disabled by request" });
      expect((await s.listWebhooks({ filters: [{ field: "status", op: "eq", value: "disabled" }] })).data.map((w) => w.webhookId)).toContain(hookId);
      await s.setContextStatus(contextId, "active");
      const failed = await byStatus("failed");
      expect(failed.map((d) => [d.status, d.lastError])).toEqual([
        ["failed", "webhook disabled"],
        ["failed", "webhook disabled"],
      ]);
      expect(await failure(s.redeliverWebhookDelivery(hookId, failed[0].deliveryId))).toMatchObject({ status: 409, code: "webhook_disabled" });
      expect(await failure(s.recoverWebhookDeliveries(hookId, { since: failed[0].createdAt }))).toMatchObject({ status: 409, code: "webhook_disabled" });
      expect(await failure(s.setWebhookStatus(hookId, "disabled"))).toMatchObject({ status: 422, code: "invalid_transition" });
    });

    it("enabled again, recover makes its failed deliveries pending, with their webhook-ids", async () => {
      const failed = await byStatus("failed");
      expect(await s.setWebhookStatus(hookId, "enabled")).toMatchObject({ status: "enabled", disabledReason: null, disabledAt: null });
      const result = await s.recoverWebhookDeliveries(hookId, { since: failed[0].createdAt });
      expect(result).toEqual({ webhookId: hookId, since: failed[0].createdAt, until: null, recovered: 2 });
      const pending = await byStatus("pending");
      expect(pending.map((d) => [d.deliveryId, d.messageId])).toEqual(failed.map((d) => [d.deliveryId, d.messageId]));
      expect(await byStatus("failed")).toEqual([]);
      expect((await s.recoverWebhookDeliveries(hookId, { since: failed[0].createdAt })).recovered).toBe(0);
    });

    it("redeliver makes one failed delivery pending; unknown ids and bad windows are refused", async () => {
      await s.setWebhookStatus(hookId, "disabled");
      await s.setContextStatus(contextId, "completed");
      await s.setWebhookStatus(hookId, "enabled");
      const failed = await byStatus("failed");
      expect(failed).toHaveLength(3);
      const again = await s.redeliverWebhookDelivery(hookId, failed[2].deliveryId);
      expect(again).toMatchObject({ deliveryId: failed[2].deliveryId, messageId: failed[2].messageId, status: "pending" });
      expect((await byStatus("failed")).map((d) => d.deliveryId)).toEqual([failed[0].deliveryId, failed[1].deliveryId]);
      expect(await failure(s.redeliverWebhookDelivery(hookId, "0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10"))).toMatchObject({ status: 404, code: "not_found" });
      expect(await failure(s.recoverWebhookDeliveries(hookId, { since: "last week" } as never))).toMatchObject({ status: 400, code: "invalid_request" });
      expect(await failure(s.recoverWebhookDeliveries("0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10", { since: failed[0].createdAt }))).toMatchObject({ status: 404 });
    });
  });
}
