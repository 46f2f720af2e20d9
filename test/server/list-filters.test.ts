import { z } from "@hono/zod-openapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIST_SPECS, type ValueKind } from "../../src/contract/list-query.js";
import { ROUTES, type RouteSpec } from "../../src/contract/routes.js";
import { LIST_ITEMS, propertyOf } from "../../src/server/openapi-params.js";
import { fillPath } from "./route-fill.js";
import { startServer, type Harness } from "./harness.js";
import { seedWorkspace, type Seeded } from "./seed.js";

/**
 * An enum filter takes exactly its values, on every list: whatever the OpenAPI document
 * enumerates for a `filter[<field>][<op>]` parameter is accepted, anything else is 400
 * `invalid_request` naming the parameter (never a 200 with an empty or wrong list). The
 * cases are read from the document and the list declarations, so a new list or a new enum
 * field is covered without touching this test.
 */
let h: Harness;
let admin: string;
let seeded: Seeded;
let doc: { paths: Record<string, Record<string, { parameters?: { name: string; schema: { enum?: string[] } }[] }>> };
beforeAll(async () => {
  h = await startServer({ worker: { idleMs: 10, settleMs: 5 }, webhooks: false });
  admin = await h.token("admin");
  seeded = await seedWorkspace(h, admin);
  doc = (await h.request("GET", "/v1/openapi.json")).json;
});
afterAll(async () => {
  await h?.close();
});

const LISTS = ROUTES.filter((r): r is RouteSpec & { query: { kind: "list"; list: keyof typeof LIST_SPECS } } => r.method === "GET" && r.query.kind === "list");

/** The enum filter parameters of a list route in the OpenAPI document: name, field, operator, values. */
function enumFilters(route: RouteSpec): { name: string; field: string; op: string; values: string[] }[] {
  const op = doc.paths[`/v1${route.path}`]?.get;
  expect(op, `${route.path} is in the document`).toBeDefined();
  return (op!.parameters ?? []).flatMap((p) => {
    const m = /^filter\[(.+)\]\[(\w+)\]$/.exec(p.name);
    return m && p.schema.enum ? [{ name: p.name, field: m[1], op: m[2], values: p.schema.enum }] : [];
  });
}

describe("enum filters", () => {
  it("are declared for every enum property of every list's items, with the same values (so every one is checked)", () => {
    for (const [list, spec] of Object.entries(LIST_SPECS)) {
      const kinds = (spec.kinds ?? {}) as Readonly<Record<string, ValueKind>>;
      for (const field of spec.filters.filter((f) => !f.endsWith(".*"))) {
        const prop = propertyOf(LIST_ITEMS[list as keyof typeof LIST_SPECS], field);
        const values = prop ? (z.toJSONSchema(prop, { unrepresentable: "any" }) as { enum?: string[] }).enum : undefined;
        if (values) expect(kinds[field], `${list} ${field}`).toEqual(values);
      }
    }
  });

  it("exist on every list that has one in its items (the document enumerates them)", () => {
    const withEnums = LISTS.filter((r) => enumFilters(r).length > 0).map((r) => r.path);
    // Models, fields, contexts, records, contributions, rules, evaluations, webhooks, deliveries.
    expect(withEnums.length).toBeGreaterThanOrEqual(9);
  });

  it("refuse a value they do not take with 400 invalid_request naming the parameter, on every list, with eq, ne and in", async () => {
    let checked = 0;
    for (const route of LISTS) {
      const path = fillPath(route, seeded);
      for (const f of enumFilters(route).filter((x) => x.op === "eq" || x.op === "ne" || x.op === "in")) {
        const value = f.op === "in" ? `${f.values[0]},no-such-value` : "no-such-value";
        const r = await h.request("GET", `${path}?${encodeURIComponent(f.name)}=${encodeURIComponent(value)}`, { token: admin });
        expect(r.status, `${route.path} ${f.name}`).toBe(400);
        expect(r.json.code, `${route.path} ${f.name}`).toBe("invalid_request");
        expect(r.json.errors?.[0]?.path, `${route.path} ${f.name}`).toBe(f.name);
        expect(r.json.detail, `${route.path} ${f.name}`).toContain(`use one of ${f.values.join(", ")}`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("accept every value they enumerate", async () => {
    for (const route of LISTS) {
      const path = fillPath(route, seeded);
      for (const f of enumFilters(route).filter((x) => x.op === "eq")) {
        for (const value of f.values) {
          const r = await h.request("GET", `${path}?${encodeURIComponent(f.name)}=${encodeURIComponent(value)}`, { token: admin });
          expect(r.status, `${route.path} ${f.name}=${value}`).toBe(200);
        }
      }
    }
  });

  it("GET /v1/webhooks/{id}/deliveries?filter[status][eq]=delivered is a 400 (the document allows pending, succeeded, failed)", async () => {
    const r = await h.request("GET", `/v1/webhooks/${seeded.webhookId}/deliveries?filter[status][eq]=delivered`, { token: admin });
    expect([r.status, r.json.code]).toEqual([400, "invalid_request"]);
    const deliveries = enumFilters(ROUTES.find((x) => x.operation === "listWebhookDeliveries")!).find((f) => f.name === "filter[status][eq]");
    expect(deliveries?.values).toEqual(["pending", "succeeded", "failed"]);
  });
});
