import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../helpers/cli.js";
import { expectErrorLine, expectProblem, messages, ok, run, runBody } from "../cli/support.js";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

describe("ddsctl webhooks", () => {
  it("create prints the secret once, with a warning on stderr to store it", async () => {
    const r = await run(box, ["webhooks", "create", "--url", "https://example.com/a", "--event", "context.resolved", "--event", "context.stale,evaluation.changed", "--description", "ops"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^secret:\s+whsec_[A-Za-z0-9+/]{32}$/m);
    expect(r.stdout).toMatch(/^events:\s+context\.resolved, context\.stale, evaluation\.changed$/m);
    expect(messages(r).some((l) => /^warning: store the secret now/.test(l))).toBe(true);
  });

  it("create --json answers the 201 body; get, list and deliveries never show the secret", async () => {
    const created = ok(await runBody(box, ["webhooks", "create"], { url: "https://example.com/b", events: ["context.status_changed"] }));
    expect(created.secret).toMatch(/^whsec_/);
    const got = ok(await run(box, ["webhooks", "get", created.webhookId, "--json"]));
    expect(got).toEqual({
      webhookId: created.webhookId,
      url: "https://example.com/b",
      events: ["context.status_changed"],
      description: "",
      status: "enabled",
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      createdAt: created.createdAt,
    });
    const list = ok(await run(box, ["webhooks", "list", "--json", "--filter", "url=https://example.com/b"]));
    expect(list).toEqual({ data: [got], nextCursor: null, hasNextPage: false });
    const c = ok(await run(box, ["contexts", "create", "--json"]));
    ok(await run(box, ["contexts", "status", c.contextId, "completed", "--json"]));
    const deliveries = ok(await run(box, ["webhooks", "deliveries", created.webhookId, "--json"]));
    expect(deliveries.data).toHaveLength(1);
    expect(deliveries.data[0]).toMatchObject({ webhookId: created.webhookId, eventType: "context.status_changed", status: "pending", attempts: 0 });
    const table = await run(box, ["webhooks", "deliveries", created.webhookId]);
    expect(table.stdout.split("\n")[0]).toBe("DELIVERY ID\tEVENT\tSTATUS\tATTEMPTS\tLAST\tNEXT ATTEMPT\tCREATED");
  });

  it("delete, then get is not found (exit 4)", async () => {
    const created = ok(await runBody(box, ["webhooks", "create"], { url: "https://example.com/c", events: ["context.stale"] }));
    const del = await run(box, ["webhooks", "delete", created.webhookId]);
    expect(del.exitCode).toBe(0);
    expect(del.stdout).toBe("");
    expectProblem(await run(box, ["webhooks", "get", created.webhookId, "--json"]), 4, 404, "not_found");
  });

  it("rejects a non-http URL (400, exit 1) and missing flags (usage, exit 2)", async () => {
    expectProblem(await run(box, ["webhooks", "create", "--url", "ftp://example.com/x", "--event", "context.stale", "--json"]), 1, 400, "invalid_request");
    expectErrorLine(await run(box, ["webhooks", "create", "--url", "https://example.com/x"]), 2, /--event/);
  });

  it("disable and enable: get and list show the status and the reason; enable says how to recover what was missed", async () => {
    const created = ok(await runBody(box, ["webhooks", "create"], { url: "https://example.com/d", events: ["context.status_changed"] }));
    const off = ok(await run(box, ["webhooks", "disable", "https://example.com/d", "--json"]));
    expect(off).toMatchObject({ webhookId: created.webhookId, status: "disabled", disabledReason: "disabled by request", disabledAt: expect.stringMatching(/Z$/) });
    const shown = await run(box, ["webhooks", "get", created.webhookId]);
    expect(shown.stdout).toMatch(/^status:\s+disabled$/m);
    expect(shown.stdout).toMatch(/^disabledReason:\s+disabled by request$/m);
    const table = await run(box, ["webhooks", "list", "--filter", "status=disabled"]);
    expect(table.stdout.split("\n")[0]).toBe("WEBHOOK ID\tURL\tSTATUS\tEVENTS\tDESCRIPTION\tDISABLED BECAUSE\tCREATED");
    expect(table.stdout).toContain(`${created.webhookId}\thttps://example.com/d\tdisabled\tcontext.status_changed\t\tdisabled by request\t`);
    const on = await run(box, ["webhooks", "enable", created.webhookId]);
    expect(on.exitCode, on.stderr).toBe(0);
    expect(on.stdout).toMatch(/^status:\s+enabled$/m);
    expect(messages(on).join("\n")).toContain(`ddsctl webhooks recover ${created.webhookId} --since ${off.disabledAt}`);
    expectProblem(await run(box, ["webhooks", "enable", created.webhookId, "--json"]), 1, 422, "invalid_transition");
  });

  it("deliveries --status, redeliver and recover --since", async () => {
    const created = ok(await runBody(box, ["webhooks", "create"], { url: "https://example.com/e", events: ["context.status_changed"] }));
    const c = ok(await run(box, ["contexts", "create", "--json"]));
    ok(await run(box, ["contexts", "status", c.contextId, "completed", "--json"]));
    ok(await run(box, ["webhooks", "disable", created.webhookId, "--json"]));
    ok(await run(box, ["contexts", "status", c.contextId, "active", "--json"]));
    ok(await run(box, ["webhooks", "enable", created.webhookId, "--json"]));
    const failed = ok(await run(box, ["webhooks", "deliveries", created.webhookId, "--status", "failed", "--json"])).data;
    expect(failed.map((d: { lastError: string }) => d.lastError)).toEqual(["webhook disabled", "webhook disabled"]);
    expect(ok(await run(box, ["webhooks", "deliveries", created.webhookId, "--status", "succeeded", "--json"])).data).toEqual([]);
    const old = await run(box, ["webhooks", "deliveries", created.webhookId, "--status", "delivered"]);
    expect(old.exitCode).toBe(2);
    expect(old.stderr).toMatch(/'delivered' is invalid. Allowed choices are pending, succeeded, failed. "delivered" is called "succeeded" now./);
    const bad = await run(box, ["webhooks", "deliveries", created.webhookId, "--status", "sent"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/'sent' is invalid. Allowed choices are pending, succeeded, failed/);

    const again = ok(await run(box, ["webhooks", "redeliver", "https://example.com/e", failed[0].deliveryId, "--json"]));
    expect(again).toMatchObject({ deliveryId: failed[0].deliveryId, messageId: failed[0].messageId, status: "pending", attempts: 0 });
    const shown = await run(box, ["webhooks", "redeliver", created.webhookId, failed[0].deliveryId]);
    expect(shown.stdout).toMatch(new RegExp(`^webhook-id:\\s+${failed[0].messageId}$`, "m"));

    const recovered = ok(await run(box, ["webhooks", "recover", created.webhookId, "--since", "2h", "--json"]));
    expect(recovered).toMatchObject({ webhookId: created.webhookId, until: null, recovered: 1 });
    expect(Date.now() - Date.parse(recovered.since)).toBeGreaterThanOrEqual(2 * 3_600_000);
    expect(ok(await run(box, ["webhooks", "deliveries", created.webhookId, "--status", "pending", "--json"])).data).toHaveLength(2);
    const table = await run(box, ["webhooks", "recover", created.webhookId, "--since", "2026-01-01T00:00:00Z", "--until", "2026-01-02"]);
    expect(table.stdout).toMatch(/^recovered:\s+0$/m);
    expectErrorLine(await run(box, ["webhooks", "recover", created.webhookId, "--since", "last tuesday"]), 2, /--since last tuesday/);
    const missing = await run(box, ["webhooks", "recover", created.webhookId]);
    expect([missing.exitCode, missing.stderr.split("\n")[0]]).toEqual([2, "error: required option '--since <when>' not specified"]);
  });

  it("serve refuses a webhook setting it cannot read, naming the flag or variable (exit 2)", async () => {
    expectErrorLine(await run(box, ["serve", "--port", "0", "--webhook-schedule", "5s,,1m"]), 2, /--webhook-schedule 5s,,1m/);
    expectErrorLine(await run(box, ["serve", "--port", "0", "--webhook-timeout", "0"]), 2, /--webhook-timeout 0/);
    expectErrorLine(await ddsctl(box, ["serve", "--port", "0"], { env: { DDS_WEBHOOK_DISABLE_AFTER: "soon" } }), 2, /DDS_WEBHOOK_DISABLE_AFTER soon/);
  });
});
