import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../helpers/cli.js";
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
});
