import { execa, type ResultPromise } from "execa";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Harness } from "../server/harness.js";
import { startReceiver, until } from "./support.js";

/**
 * docs/examples/webhook-receiver.mjs, the receiver docs/webhooks.md tells readers to start
 * from, run as its own process against a real server and dispatcher: it verifies what the
 * server signs, answers 2xx, and recognises an event sent again by its webhook-id.
 */
const EXAMPLE = resolve(import.meta.dirname, "../../docs/examples/webhook-receiver.mjs");

let h: Harness;
let token = "";
let receiver: ResultPromise | undefined;
let lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  h = await startServer({ webhooks: { retryDelaysMs: [200, 200, 200] } });
  token = await h.token("admin");
});
afterAll(async () => {
  receiver?.kill("SIGTERM");
  await receiver;
  await h?.close();
});

const api = async (method: string, path: string, body?: unknown) => {
  const res = await h.request(method, `/v1${path}`, { token, body });
  expect(res.status, res.text).toBeLessThan(300);
  return res.json;
};

/** Starts the example on `port` with `secret`; resolves once it listens. */
async function startExample(port: number, secret: string): Promise<void> {
  receiver = execa("node", [EXAMPLE], { env: { WEBHOOK_SECRET: secret, PORT: String(port) }, reject: false });
  receiver.stdout!.on("data", (d: Buffer) => {
    for (const line of d.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  let seen = "";
  await new Promise<void>((ok, fail) => {
    receiver!.stderr!.on("data", (d: Buffer) => {
      seen += d.toString();
      if (seen.includes("listening on")) ok();
    });
    void receiver!.then((r) => fail(new Error(`the example receiver exited (${r.exitCode}): ${seen}`)));
  });
}

describe("the example receiver in docs/", () => {
  it("verifies and acknowledges every event, refuses a forged one, and spots a redelivery as a duplicate", async () => {
    const probe = await startReceiver(() => "");
    const port = probe.port;
    await probe.close();
    const hook = await api("POST", "/webhooks", { url: `http://127.0.0.1:${port}/hooks`, events: ["context.status_changed"] });
    await startExample(port, hook.secret);

    const { contextId } = await api("POST", "/contexts", {});
    await api("PUT", `/contexts/${contextId}/status/completed`);
    await api("PUT", `/contexts/${contextId}/status/active`);
    const deliveries = async () => (await api("GET", `/webhooks/${hook.webhookId}/deliveries`)).data as { deliveryId: string; messageId: string; status: string; attempts: number }[];
    await until(async () => (await deliveries()).every((d) => d.status === "succeeded"), 20_000);
    // Acknowledged at the first attempt: the receiver answered 2xx to what it verified.
    expect((await deliveries()).map((d) => d.attempts)).toEqual([1, 1]);
    // Both were sent at once: in either order.
    const byId = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a.webhookId).localeCompare(String(b.webhookId));
    expect([...lines].sort(byId)).toEqual((await deliveries()).map((d) => ({ webhookId: d.messageId, type: "context.status_changed", duplicate: false })).sort(byId));

    const forged = await fetch(`http://127.0.0.1:${port}/hooks`, {
      method: "POST",
      headers: { "webhook-id": "msg_forged", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": "v1,AAAA", "content-type": "application/json" },
      body: JSON.stringify({ type: "context.stale", timestamp: new Date().toISOString(), data: {} }),
    });
    expect(forged.status).toBe(401);
    await until(() => lines.length === 3);
    expect(lines[2]).toEqual({ rejected: expect.any(String) });

    const [first] = await deliveries();
    await api("POST", `/webhooks/${hook.webhookId}/deliveries/${first.deliveryId}/redeliver`);
    await until(() => lines.length === 4, 20_000);
    expect(lines[3]).toEqual({ webhookId: first.messageId, type: "context.status_changed", duplicate: true });
    await until(async () => (await deliveries())[0].status === "succeeded");
  });
});
