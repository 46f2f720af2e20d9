import { execa } from "execa";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpClient } from "../../src/client/index.js";
import { setupMortgageModels } from "../contract/mortgage-models.js";
import { parseSamples, scrape, sampleValue } from "../helpers/prom-text.js";
import { startServer, type Harness } from "./harness.js";
import { rawRequest } from "./raw-http.js";
import { seedWorkspace, type Seeded } from "./seed.js";

/**
 * `GET /metrics` of an in-process server: its own listener, the request histogram by route
 * template, the pipeline's and the webhook dispatcher's counters, and the gauges read from
 * the database on scrape. Every wait is for a condition, never for a duration.
 */

let h: Harness;
let admin: string;
let seeded: Seeded;
const lines: string[] = [];

beforeAll(async () => {
  // A failed delivery is retried a minute later at the earliest: the attempt counted stays one.
  h = await startServer({ quiet: false, logFormat: "json", log: (l) => lines.push(l), metrics: { port: 0 }, worker: { idleMs: 10, settleMs: 5 }, webhooks: { retryDelaysMs: [60_000], idleMs: 50 } });
  admin = await h.token("admin");
  seeded = await seedWorkspace(h, admin);
});

afterAll(async () => {
  await h?.close();
});

const metrics = () => scrape(h.server.metricsUrl!);

/** Scrapes until `check` holds on the text (the worker and dispatcher run on their own). */
async function scrapeUntil(check: (text: string) => boolean, what: string): Promise<string> {
  for (let i = 0; i < 2000; i++) {
    const text = await metrics();
    if (check(text)) return text;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`metrics never showed ${what}`);
}

describe("the metrics listener", () => {
  it("serves the Prometheus text format on its own port, bound to 127.0.0.1, with the process's default metrics", async () => {
    expect(h.server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(h.server.metricsUrl!).port).not.toBe(String(h.server.port));
    const res = await fetch(h.server.metricsUrl!);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    for (const name of ["dds_http_request_duration_seconds", "dds_http_requests_in_flight", "dds_pipeline_pass_duration_seconds", "dds_pipeline_claim_takeovers_total", "dds_pipeline_contexts_backlog", "dds_webhook_outbox_pending", "dds_webhook_outbox_due", "dds_webhook_delivery_attempts_total", "dds_db_up", "process_cpu_seconds_total", "process_resident_memory_bytes", "nodejs_eventloop_lag_seconds"]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect(sampleValue(text, "dds_db_up")).toBe(1);
    // SQLite has one connection and no pool: no pool gauges.
    expect(text).not.toContain("dds_db_pool_connections");
  });

  it("the API's port never exposes them: /metrics there is a 404 problem, with or without a token", async () => {
    for (const token of [undefined, admin]) {
      const res = await h.request("GET", "/metrics", { token });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(res.json).toMatchObject({ code: "not_found" });
    }
  });

  it("answers anything else with problem+json: another path, another method, no Host", async () => {
    const port = Number(new URL(h.server.metricsUrl!).port);
    const other = await fetch(h.server.metricsUrl!.replace(/\/metrics$/, "/v1/models"));
    expect(other.status).toBe(404);
    expect(other.headers.get("content-type")).toBe("application/problem+json");
    const post = await fetch(h.server.metricsUrl!, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect(await post.json()).toMatchObject({ code: "method_not_allowed" });
    const hostless = await rawRequest(port, "GET /metrics HTTP/1.1\r\n\r\n");
    expect(hostless.status).toBe(400);
    expect(hostless.headers["content-type"]).toBe("application/problem+json");
  });
});

describe("requests", () => {
  it("are timed by method, route template and status class, the read lane's GETs included; raw paths never become labels", async () => {
    const byId = { method: "GET", route: "/v1/contexts/{contextId}", status_class: "2xx" };
    const created = { method: "POST", route: "/v1/contexts", status_class: "2xx" };
    const unmatched = { method: "GET", route: "unmatched", status_class: "4xx" };
    const count = (text: string, labels: Record<string, string>) => sampleValue(text, "dds_http_request_duration_seconds_count", labels) ?? 0;
    const before = await metrics();
    // Three plain GETs (the read lane) and one with a query (the app) of the same route.
    for (let i = 0; i < 3; i++) expect((await h.request("GET", `/v1/contexts/${seeded.contextId}`, { token: admin })).status).toBe(200);
    expect((await h.request("GET", `/v1/contexts/${seeded.contextId}?include=summary`, { token: admin })).status).toBe(200);
    expect((await h.request("POST", "/v1/contexts", { token: admin, body: { name: "metrics-case" } })).status).toBe(201);
    expect((await h.request("GET", "/v1/no-such-thing", { token: admin })).status).toBe(404);
    const after = await metrics();
    expect(count(after, byId) - count(before, byId)).toBe(4);
    expect(count(after, created) - count(before, created)).toBe(1);
    expect(count(after, unmatched) - count(before, unmatched)).toBe(1);
    expect(sampleValue(after, "dds_http_request_duration_seconds_bucket", { ...byId, le: "+Inf" })).toBe(count(after, byId));
    expect(after).not.toContain(seeded.contextId);
    expect(sampleValue(after, "dds_http_requests_in_flight")).toBe(0);
  });

  it("count every answer by its status code, a bounded label: the codes the API answers, else other", async () => {
    const answers = (text: string, labels: Record<string, string>) => sampleValue(text, "dds_http_responses_total", labels) ?? 0;
    const before = await metrics();
    expect((await h.request("POST", "/v1/contexts", { token: admin, body: { name: "code-201" } })).status).toBe(201);
    expect((await h.request("GET", "/v1/contexts/01900000-0000-7000-8000-000000000000", { token: admin })).status).toBe(404);
    expect((await h.request("GET", "/v1/contexts?limit=0", { token: admin })).status).toBe(400);
    const after = await metrics();
    expect(answers(after, { method: "POST", route: "/v1/contexts", code: "201" }) - answers(before, { method: "POST", route: "/v1/contexts", code: "201" })).toBe(1);
    const missing = { method: "GET", route: "/v1/contexts/{contextId}", code: "404" };
    expect(answers(after, missing) - answers(before, missing)).toBe(1);
    expect(answers(after, { method: "GET", route: "/v1/contexts", code: "400" }) - answers(before, { method: "GET", route: "/v1/contexts", code: "400" })).toBe(1);
    const codes = new Set(parseSamples(after).filter((x) => x.name === "dds_http_responses_total").map((x) => x.labels.code));
    for (const code of codes) expect(code).toMatch(/^([1-5]\d\d|other)$/);
  });

  it("count requests refused for their token, by reason", async () => {
    const refused = (text: string, reason: string) => sampleValue(text, "dds_auth_failures_total", { reason });
    const before = await metrics();
    for (const reason of ["missing", "invalid", "expired", "scope"]) expect(refused(before, reason)).toBeGreaterThanOrEqual(0);
    const reader = await h.token("read");
    expect((await h.request("GET", "/v1/models")).status).toBe(401);
    expect((await h.request("GET", "/v1/models", { token: "dds_not-a-token-of-this-database-at-all-000000000" })).status).toBe(401);
    expect((await h.request("POST", "/v1/contexts", { token: reader, body: {} })).status).toBe(403);
    const after = await metrics();
    expect(refused(after, "missing")! - refused(before, "missing")!).toBe(1);
    expect(refused(after, "invalid")! - refused(before, "invalid")!).toBe(1);
    expect(refused(after, "scope")! - refused(before, "scope")!).toBe(1);
  });

  it("say which ddsctl and Node.js build this node runs (dds_build_info, always 1)", async () => {
    const version = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
    expect(sampleValue(await metrics(), "dds_build_info", { version, node_version: process.versions.node, store: "sqlite" })).toBe(1);
  });
});

describe("the pipeline", () => {
  it("counts passes by outcome as evidence is resolved", async () => {
    const resolved = (text: string) => sampleValue(text, "dds_pipeline_pass_duration_seconds_count", { outcome: "resolved" }) ?? 0;
    const before = resolved(await metrics());
    await seeded.client.createContribution({ contextId: seeded.contextId, modelId: seeded.models.Loan, sourceId: "metrics", sourceType: "user", data: { amount: 210000 } });
    await scrapeUntil((t) => resolved(t) > before, "one more resolved pass");
  });

  it("shows a context another node holds as computing, and counts the take-over once its lease has run out (and logs it)", async () => {
    const takeovers = (text: string) => sampleValue(text, "dds_pipeline_claim_takeovers_total") ?? 0;
    const computing = (text: string) => sampleValue(text, "dds_pipeline_contexts_backlog", { freshness: "computing" });
    const before = await metrics();
    // What a node that died mid-pass leaves behind: a claim under a lease, then the lease run out.
    await h.store.sql.run("UPDATE contexts SET freshness = 'computing', claimed_by = 'dead-node', lease_expires_at = ? WHERE uuid = ?", [
      h.store.sql.dialect.time(Date.now() + 3_600_000),
      h.store.sql.dialect.uuid(seeded.contextId),
    ]);
    expect(computing(await metrics())).toBe(1);
    await h.store.sql.run("UPDATE contexts SET lease_expires_at = ? WHERE uuid = ?", [h.store.sql.dialect.time(1), h.store.sql.dialect.uuid(seeded.contextId)]);
    const after = await scrapeUntil((t) => takeovers(t) > takeovers(before) && computing(t) === 0, "the take-over");
    expect(takeovers(after)).toBe(takeovers(before) + 1);
    const event = lines.map((l) => JSON.parse(l)).find((l) => l.event === "claim_takeover");
    expect(event).toMatchObject({ level: "warn", msg: "claim_takeover", contextId: seeded.contextId, workspace: "default" });
  });
});

describe("webhooks", () => {
  it("count each delivery attempt by outcome, and show the outbox still to deliver", async () => {
    // The seeded webhook points at a closed port: its first attempt fails and waits a minute to retry.
    const text = await scrapeUntil((t) => (sampleValue(t, "dds_webhook_delivery_attempts_total", { outcome: "retrying" }) ?? 0) >= 1, "a failed attempt");
    expect(sampleValue(text, "dds_webhook_delivery_attempts_total", { outcome: "delivered" })).toBe(0);
    expect(sampleValue(text, "dds_webhook_outbox_pending")).toBeGreaterThanOrEqual(1);
    expect(sampleValue(text, "dds_webhook_outbox_due")).toBe(0);
    // How long the receiver took, by the same outcome.
    expect(sampleValue(text, "dds_webhook_delivery_duration_seconds_count", { outcome: "retrying" })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(text, "dds_webhook_delivery_duration_seconds_sum", { outcome: "retrying" })).toBeGreaterThan(0);
  });
});

describe("the exposition", () => {
  it("passes promtool check metrics (Prometheus' own linter), after traffic of every kind", async () => {
    await h.request("GET", "/v1/models");
    await h.request("GET", `/v1/contexts/${seeded.contextId}`, { token: admin });
    await scrapeUntil((t) => (sampleValue(t, "dds_webhook_delivery_attempts_total", { outcome: "retrying" }) ?? 0) >= 1, "a delivery attempt");
    const text = await metrics();
    const r = await execa("promtool", ["check", "metrics"], { input: text, reject: false });
    expect(`${r.stdout}${r.stderr}`).toBe("");
    expect(r.exitCode).toBe(0);
    // prom-client's *_total gauges, which promtool refuses, are left out; the counts by type stay.
    expect(text).not.toMatch(/^nodejs_active_\w+_total/m);
    expect(text).toContain("# TYPE nodejs_active_handles gauge");
  });
});

describe("the stale backlog", () => {
  it("counts active contexts waiting for a pass, read at scrape time", async () => {
    const idle = await startServer({ metrics: { port: 0 }, worker: false, webhooks: false });
    try {
      const client = createHttpClient({ baseUrl: `${idle.origin}/v1`, token: await idle.token("admin") });
      const models = await setupMortgageModels(client);
      const stale = async () => sampleValue(await scrape(idle.server.metricsUrl!), "dds_pipeline_contexts_backlog", { freshness: "stale" }) ?? 0;
      expect(await stale()).toBe(0);
      expect(sampleValue(await scrape(idle.server.metricsUrl!), "dds_pipeline_oldest_stale_seconds")).toBe(0);
      for (const name of ["backlog-1", "backlog-2"]) {
        const { contextId } = await client.createContext({ name });
        await client.createContribution({ contextId, modelId: models.Loan, sourceId: "form", sourceType: "document", data: { amount: 100000 } });
      }
      expect(await stale()).toBe(2);
      // How long the one that has waited longest has been stale: since its evidence came, not since it was made.
      const oldest = sampleValue(await scrape(idle.server.metricsUrl!), "dds_pipeline_oldest_stale_seconds")!;
      expect(oldest).toBeGreaterThanOrEqual(0);
      expect(oldest).toBeLessThan(600);
      await client.close();
    } finally {
      await idle.close();
    }
  });
});
