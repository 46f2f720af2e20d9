import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Harness } from "../server/harness.js";

/** The REST side of redelivery: 202s, Idempotency-Keys, and the OpenAPI document. */
let h: Harness;
let token = "";
let hookId = "";

beforeAll(async () => {
  // No dispatcher: what the answers say is all that changes the rows.
  h = await startServer({ webhooks: false });
  token = await h.token("admin");
  hookId = (await h.request("POST", "/v1/webhooks", { token, body: { url: "http://127.0.0.1:9/hook", events: ["context.status_changed"] } })).json.webhookId;
  const contextId = (await h.request("POST", "/v1/contexts", { token, body: {} })).json.contextId;
  // Two events while disabled: two failed deliveries, kept.
  expect((await h.request("PUT", `/v1/webhooks/${hookId}/status/disabled`, { token })).json.status).toBe("disabled");
  await h.request("PUT", `/v1/contexts/${contextId}/status/completed`, { token });
  await h.request("PUT", `/v1/contexts/${contextId}/status/active`, { token });
  expect((await h.request("PUT", `/v1/webhooks/${hookId}/status/enabled`, { token })).json.status).toBe("enabled");
});
afterAll(() => h?.close());

describe("redelivery over REST", () => {
  it("recover answers 202 with the count; a retry with the same Idempotency-Key gets the same answer, recovering nothing twice", async () => {
    const body = { since: "2000-01-01T00:00:00Z" };
    const headers = { "idempotency-key": "recover-1" };
    const first = await h.request("POST", `/v1/webhooks/${hookId}/recover`, { token, body, headers });
    expect(first.status, first.text).toBe(202);
    expect(first.json).toEqual({ webhookId: hookId, since: "2000-01-01T00:00:00.000Z", until: null, recovered: 2 });
    const again = await h.request("POST", `/v1/webhooks/${hookId}/recover`, { token, body, headers });
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json).toEqual(first.json);
    // A new request (no key) runs: nothing is failed any more.
    expect((await h.request("POST", `/v1/webhooks/${hookId}/recover`, { token, body })).json.recovered).toBe(0);
  });

  it("redeliver answers 202 with the delivery; the filter takes succeeded, failed and pending, and refuses the old delivered saying what it is called now", async () => {
    const list = await h.request("GET", `/v1/webhooks/${hookId}/deliveries?filter[status]=pending`, { token });
    expect(list.json.data).toHaveLength(2);
    const d = list.json.data[0];
    const res = await h.request("POST", `/v1/webhooks/${hookId}/deliveries/${d.deliveryId}/redeliver`, { token, headers: { "idempotency-key": "redeliver-1" } });
    expect(res.status, res.text).toBe(202);
    expect(res.json).toEqual(d);
    for (const status of ["succeeded", "failed"]) {
      const none = await h.request("GET", `/v1/webhooks/${hookId}/deliveries?filter[status]=${status}`, { token });
      expect([none.status, none.json.data], status).toEqual([200, []]);
    }
    const old = await h.request("GET", `/v1/webhooks/${hookId}/deliveries?filter[status][eq]=delivered`, { token });
    expect([old.status, old.json.code]).toEqual([400, "invalid_request"]);
    expect(old.json.detail).toBe('filter status: "delivered" is not valid; use one of pending, succeeded, failed ("delivered" is called "succeeded" now)');
    const bad = await h.request("GET", `/v1/webhooks/${hookId}/deliveries?filter[status]=sent`, { token });
    expect([bad.status, bad.json.code]).toEqual([400, "invalid_request"]);
    expect((await h.request("PUT", `/v1/webhooks/${hookId}/status/paused`, { token })).status).toBe(400);
  });

  it("the OpenAPI document has the operations, their 202s and 409 webhook_disabled", async () => {
    const doc = (await h.request("GET", "/v1/openapi.json")).json;
    const redeliver = doc.paths["/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver"].post;
    const recover = doc.paths["/v1/webhooks/{webhookId}/recover"].post;
    const status = doc.paths["/v1/webhooks/{webhookId}/status/{targetStatus}"].put;
    expect(Object.keys(redeliver.responses)).toContain("202");
    expect(recover.responses["202"].content["application/json"].schema.$ref).toBe("#/components/schemas/WebhookRecoverResult");
    for (const op of [redeliver, recover]) expect(op.responses["409"].content["application/problem+json"].schema.allOf[1].properties.code.enum).toContain("webhook_disabled");
    expect(status.parameters.find((p: { name: string }) => p.name === "targetStatus").schema.enum).toEqual(["enabled", "disabled"]);
    expect(doc.components.schemas.WebhookDelivery.properties.status.enum).toEqual(["pending", "succeeded", "failed"]);
    expect(doc.components.schemas.Webhook.required).toEqual(expect.arrayContaining(["status", "disabledReason", "disabledAt", "failingSince"]));
    expect(doc.webhooks["context.resolved"].post.responses["2XX"].description).toMatch(/after 5s, 1m, 5m, 30m, 2h, 5h, 10h, 10h/);
  });
});
