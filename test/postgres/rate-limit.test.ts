import { Agent, fetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken, setWorkspaceRate } from "../../src/engine/auth/index.js";
import { createRateBudgets } from "../../src/engine/index.js";
import { SHARE_OF_QUOTA } from "../../src/server/rate-limit/shared-ledger.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { startNode, type InProcessNode } from "../helpers/pg-nodes.js";
import { THROTTLED_LINES, THROTTLED_RATE, throttledImport } from "../helpers/throttled-import.js";
import { withStore } from "./support.js";

// Rate limits on two nodes of one PostgreSQL: the nodes share each budget through the
// database. Limits have a window of a day (a unit per 86 s at 1,000 a day), so nothing
// refills while a test counts.
const DAY = 86_400;
let cluster: PgCluster;
let url: string;
let a: InProcessNode;
let b: InProcessNode;

beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase();
  const options = { rateLimits: { workspace: { quota: 100_000, windowSeconds: DAY }, token: { quota: 1000, windowSeconds: DAY } }, webhooks: false as const };
  [a, b] = await Promise.all([startNode(url, options), startNode(url, options)]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await agent.close();
  await cluster?.stop();
});

const tokenOf = (workspace: string, scope: "read" | "write" | "admin", rate?: string) => withStore(url, (store) => issueToken(store, { workspace, scopes: [scope], rate }));

/** Keep-alive shorter than the nodes' 5 s, so a busy machine never reuses a connection a node is closing. */
const agent = new Agent({ keepAliveTimeout: 1000 });

async function call(node: InProcessNode, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${node.origin}${path}`, {
    dispatcher: agent,
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const rate = Object.fromEntries([...(res.headers.get("ratelimit") ?? "").matchAll(/"(\w+)";r=(\d+)/g)].map((m) => [m[1], Number(m[2])]));
  return { status: res.status, json: text ? JSON.parse(text) : undefined, rate, retryAfter: res.headers.get("retry-after") };
}

describe("rate limits across two PostgreSQL nodes", () => {
  it("a read costs 1, a single create 10 and a bulk of 100 items 35 on a node; the other node's view agrees within the shares held", async () => {
    const admin = await tokenOf("costs", "admin", "off");
    const model = await call(a, "POST", "/v1/models", admin.token, { name: "Item", fields: [{ name: "n", type: "integer" }] });
    await call(a, "PUT", `/v1/models/${model.json.modelId}/status/active`, admin.token);
    const contextId = (await call(a, "POST", "/v1/contexts", admin.token, { name: "case" })).json.contextId;
    const { token } = await tokenOf("costs", "write");
    const first = await call(a, "GET", `/v1/contexts/${contextId}`, token);
    expect(first.rate.token).toBe(999);
    expect((await call(a, "POST", "/v1/contexts", token, { name: "x" })).rate.token).toBe(989);
    const items = Array.from({ length: 100 }, (_, i) => ({ contextId, modelId: model.json.modelId, sourceId: `s${i}`, sourceType: "document", data: { n: i } }));
    const bulk = await call(a, "POST", "/v1/contributions/bulk", token, { items });
    expect(bulk.status).toBe(200);
    expect(bulk.rate.token).toBe(954);
    // Node b sees what node a spent, less at most what node a holds and has not spent.
    const other = await call(b, "GET", "/v1/models", token);
    expect(other.rate.token).toBeLessThanOrEqual(953);
    expect(other.rate.token).toBeGreaterThanOrEqual(953 - Math.ceil(1000 * SHARE_OF_QUOTA) - 35);
  });

  it("two nodes together admit at most the limit plus 10 %, under a load far above it through both", async () => {
    const quota = 2000;
    const { token } = await tokenOf("load", "write", `${quota}/1d`);
    let admitted = 0;
    let refused = 0;
    // Eight clients, each alternating nodes, reads and creates, until the budget is gone.
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        for (let i = 0; refused < 200; i++) {
          const node = (worker + i) % 2 === 0 ? a : b;
          const write = i % 3 === 0;
          const r = write ? await call(node, "POST", "/v1/contexts", token, { name: `w${worker}-${i}` }) : await call(node, "GET", "/v1/models", token);
          if (r.status === 429) refused++;
          else {
            expect(r.status).toBeLessThan(300);
            admitted += write ? 10 : 1;
          }
        }
      }),
    );
    expect(admitted).toBeLessThanOrEqual(quota * 1.1);
    // What the nodes held and never spent when the load ended is the only shortfall.
    expect(admitted).toBeGreaterThanOrEqual(quota - 2 * (Math.ceil(quota * SHARE_OF_QUOTA) + 10));
  });

  it("two workspaces, and two tokens of one workspace, do not take from each other across the nodes", async () => {
    await withStore(url, (store) => setWorkspaceRate(store, "apart", "100/1d"));
    const a1 = await tokenOf("apart", "read", "30/1d");
    const a2 = await tokenOf("apart", "read");
    const elsewhere = await tokenOf("elsewhere", "read", "30/1d");
    const drain = async (token: string, n: number) => {
      let ok = 0;
      for (let i = 0; i < n; i++) if ((await call(i % 2 === 0 ? a : b, "GET", "/v1/models", token)).status === 200) ok++;
      return ok;
    };
    const first = await drain(a1.token, 60);
    expect(first).toBeLessThanOrEqual(30);
    expect(first).toBeGreaterThanOrEqual(30 - 2 * Math.ceil(30 * SHARE_OF_QUOTA));
    // a1's refusals cost the workspace nothing: a2 gets what is left of its 100.
    const second = await drain(a2.token, 200);
    expect(second).toBeLessThanOrEqual(100 - first);
    expect(second).toBeGreaterThanOrEqual(100 - first - 2 * (Math.ceil(100 * SHARE_OF_QUOTA) + 1));
    const third = await drain(elsewhere.token, 60);
    expect(third).toBeGreaterThanOrEqual(30 - 2 * Math.ceil(30 * SHARE_OF_QUOTA));
  });

  it("a lease is one statement that grants what fits and announces no change (the nodes' caches of reads stay)", async () => {
    await withStore(url, async (store) => {
      const lease = createRateBudgets(store)!;
      const interval = DAY * 1e6; // a unit a day: nothing is paid back meanwhile
      const ask = (need: number, want: number, back = 0) => lease([{ key: "t:statement-test", need, want, back, intervalUs: interval, quota: 100 }]);
      // The stamp's second half counts the changes committed through this store.
      const local = () => store.changeStamp().split(":")[1];
      const stamp = local();
      const grant = async (need: number, want: number, back = 0) => {
        const [g] = await ask(need, want, back);
        return [g.key, g.granted, Math.round(g.debt * 1000) / 1000];
      };
      expect(await grant(10, 60)).toEqual(["t:statement-test", 60, 60]);
      expect(await grant(30, 80)).toEqual(["t:statement-test", 40, 100]);
      expect(await grant(1, 1)).toEqual(["t:statement-test", 0, 100]);
      expect(await grant(0, 0, 30)).toEqual(["t:statement-test", 0, 70]);
      // Two budgets in one statement, one fitting and one not.
      const both = await lease([
        { key: "t:statement-test", need: 80, want: 80, back: 0, intervalUs: interval, quota: 100 },
        { key: "w:statement-test", need: 5, want: 10, back: 0, intervalUs: interval, quota: 100 },
      ]);
      expect(both.map((g) => [g.key, g.granted])).toEqual([
        ["t:statement-test", 0],
        ["w:statement-test", 10],
      ]);
      expect(local()).toBe(stamp);
    });
  });

  it("a remote import far above its token's limit completes through a node: every line stored once, none rejected, throttling said", async () => {
    const admin = await tokenOf("import", "admin", "off");
    const { token } = await tokenOf("import", "write", THROTTLED_RATE);
    const { run, stored } = await throttledImport(a.origin, token, admin.token, THROTTLED_LINES);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ lines: THROTTLED_LINES, created: THROTTLED_LINES, failed: 0, complete: true });
    expect(stored).toBe(THROTTLED_LINES);
    expect(run.stderr).toContain("throttled");
  }, 120_000);
});
