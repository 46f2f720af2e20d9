import { it } from "vitest";
import { issueToken } from "../../src/engine/auth/index.js";
import { startPostgres } from "../helpers/pg-cluster.mjs";
import { startNode } from "../helpers/pg-nodes.js";
import { withStore } from "../postgres/support.js";
it("dbg", async () => {
  const cluster = await startPostgres();
  const url = await cluster.createDatabase();
  const logs: string[] = [];
  const opts = { rateLimits: { workspace: { quota: 100000, windowSeconds: 86400 }, token: { quota: 1000, windowSeconds: 86400 } }, webhooks: false as const, quiet: true, log: (l: string) => logs.push(l) };
  const a = await startNode(url, opts); const b = await startNode(url, opts);
  const adm = await withStore(url, (s) => issueToken(s, { workspace: "costs", scopes: ["admin"], rate: "off" }));
  const H = (tok: string) => ({ authorization: `Bearer ${tok}`, "content-type": "application/json" });
  const model = await (await fetch(`${a.origin}/v1/models`, { method: "POST", headers: H(adm.token), body: JSON.stringify({ name: "Item", fields: [{ name: "n", type: "integer" }] }) })).json();
  await fetch(`${a.origin}/v1/models/${model.modelId}/status/active`, { method: "PUT", headers: H(adm.token) });
  const ctx = await (await fetch(`${a.origin}/v1/contexts`, { method: "POST", headers: H(adm.token), body: JSON.stringify({ name: "case" }) })).json();
  const items = Array.from({ length: 100 }, (_, i) => ({ contextId: ctx.contextId, modelId: model.modelId, sourceId: `s${i}`, sourceType: "document", data: { n: i } }));
  const bulk = await fetch(`${a.origin}/v1/contributions/bulk`, { method: "POST", headers: H(adm.token), body: JSON.stringify({ items }) });
  console.log("bulk", bulk.status); await bulk.text();
  const t = await withStore(url, (s) => issueToken(s, { workspace: "x", scopes: ["write"], rate: "2000/1d" }));
  const t0 = Date.now();
  let admitted = 0, refused = 0, errs = 0, slow = 0;
  await Promise.all(Array.from({ length: 8 }, async (_, w) => {
    for (let i = 0; refused < 200 && errs < 5; i++) {
      const n = (w + i) % 2 ? b : a;
      const write = i % 3 === 0;
      const ac = new AbortController(); const timer = setTimeout(() => ac.abort(), 5000);
      const s = Date.now();
      try {
        const r = await fetch(`${n.origin}${write ? "/v1/contexts" : "/v1/models"}`, { method: write ? "POST" : "GET", headers: { authorization: `Bearer ${t.token}`, "content-type": "application/json" }, body: write ? JSON.stringify({ name: `w${w}-${i}` }) : undefined, signal: ac.signal });
        await r.text();
        if (Date.now() - s > 1000) { slow++; console.log("slow", write, r.status, Date.now() - s); }
        if (r.status === 429) refused++; else admitted += write ? 10 : 1;
      } catch (e) { errs++; console.log(w, i, write, "ERR", String(e), Date.now() - s); } finally { clearTimeout(timer); }
    }
  }));
  console.log("admitted", admitted, "refused", refused, "errs", errs, "slow", slow, Date.now() - t0);
  console.log(logs.filter((l) => !l.includes("rate_limited")).slice(-10).join("\n"));
  const c0 = Date.now(); await a.close(); console.log("a closed", Date.now() - c0); await b.close(); console.log("b closed", Date.now() - c0); await cluster.stop();
}, 200000);
