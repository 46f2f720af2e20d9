import openapiTS, { astToString } from "openapi-typescript";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Harness } from "../server/harness.js";

const ROOT = join(import.meta.dirname, "../..");

/** What client-app/mortgage.ts reports (kept here: that file compiles only beside a generated schema). */
interface MortgageOutcome {
  bulk: { total: number; succeeded: number; failed: number; statuses: number[]; failedCode: string | undefined };
  loan: { amount: unknown; propertyValue: unknown; ltv: unknown; dti: unknown };
  evaluations: Record<string, boolean>;
  critical: string[];
  conflictCode: string | undefined;
  notFoundStatus: number;
  replayed: string | null;
}
// Under node_modules, so the compiled client resolves openapi-fetch like any project would.
const WORK = join(ROOT, "node_modules/.cache", `ddsctl-openapi-client-${process.pid}`);

let h: Harness;
let doc: Record<string, unknown>;

beforeAll(async () => {
  h = await startServer({ worker: { settleMs: 20, idleMs: 10 }, webhooks: false });
  doc = (await h.request("GET", "/v1/openapi.json")).json;
  mkdirSync(WORK, { recursive: true });
});

afterAll(async () => {
  await h?.close();
  rmSync(WORK, { recursive: true, force: true });
});

describe("a TypeScript client generated from /v1/openapi.json", () => {
  it("compiles with tsc (strict) and runs the mortgage case against the server", async () => {
    const ast = await openapiTS(doc as never);
    writeFileSync(join(WORK, "schema.d.ts"), astToString(ast));
    copyFileSync(join(import.meta.dirname, "client-app/mortgage.ts"), join(WORK, "mortgage.ts"));
    writeFileSync(join(WORK, "package.json"), '{"type":"module"}\n');
    const program = ts.createProgram([join(WORK, "mortgage.ts")], {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
      types: [],
      skipLibCheck: true,
      outDir: WORK,
    });
    const emitted = program.emit();
    const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(diagnostics).toEqual([]);
    // The compiled client (its own types were checked by tsc above against the generated schema).
    const { runMortgage } = (await import(pathToFileURL(join(WORK, "mortgage.js")).href)) as { runMortgage(origin: string, token: string): Promise<MortgageOutcome> };
    const outcome = await runMortgage(h.origin, await h.token("admin"));
    expect(outcome.bulk).toEqual({ total: 5, succeeded: 4, failed: 1, statuses: [201, 201, 201, 201, 422], failedCode: "validation_failed" });
    expect(outcome.replayed).toBe("true");
    expect(outcome.loan).toMatchObject({ amount: 240000, propertyValue: 320000, ltv: 0.75 });
    expect(outcome.loan.dti).toBeCloseTo(1500 / 8000, 10);
    expect(outcome.evaluations).toEqual({ "dti-limit": true, "ltv-limit": true });
    expect(outcome.critical).toEqual(["ltv-limit"]);
    expect(outcome.conflictCode).toBe("model_not_archived");
    expect(outcome.notFoundStatus).toBe(404);
  });
});

type Op = { parameters?: { name: string; in: string; schema: Record<string, unknown> }[]; responses: Record<string, { content?: Record<string, { schema: { allOf?: { properties?: { code?: { enum: string[] } } }[] } }>; headers?: Record<string, unknown> }> };
const op = (path: string, method: string) => (doc.paths as Record<string, Record<string, Op>>)[path][method];
const codes = (o: Op, status: number) => o.responses[status]?.content?.["application/problem+json"].schema.allOf?.[1].properties?.code?.enum;

describe("the document a generator can trust", () => {
  it("lists every 4xx per operation with its codes, and the headers", () => {
    const create = op("/v1/contexts", "post");
    expect(codes(create, 400)).toContain("invalid_request");
    expect(codes(create, 401)).toEqual(["unauthorized"]);
    expect(codes(create, 403)).toEqual(["forbidden"]);
    expect(codes(create, 409)).toContain("idempotency_in_progress");
    expect(codes(create, 413)).toEqual(["payload_too_large"]);
    expect(codes(create, 422)).toContain("validation_failed");
    expect(create.responses[401].headers).toHaveProperty("WWW-Authenticate");
    expect(create.responses[201].headers).toEqual(expect.objectContaining({ Location: expect.anything(), "X-Request-Id": expect.anything(), "Idempotent-Replayed": expect.anything() }));
    expect(create.parameters?.map((p) => p.name)).toEqual(expect.arrayContaining(["Idempotency-Key", "X-Request-Id"]));
    expect(codes(op("/v1/models/{modelId}", "delete"), 409)).toEqual(expect.arrayContaining(["model_not_archived", "model_has_records"]));
    expect(codes(op("/v1/contexts/{contextId}/status/{targetStatus}", "put"), 422)).toContain("invalid_transition");
    expect(codes(op("/v1/contributions/bulk", "post"), 400)).toContain("bulk_limit_exceeded");
    expect(op("/v1/contexts", "get").responses[403]).toBeUndefined();
  });

  it("declares the rate limit on every operation of the route table: 429 rate_limited with Retry-After, RateLimit-Policy and RateLimit on its answers; none on the unlimited paths", () => {
    const paths = doc.paths as Record<string, Record<string, Op>>;
    let operations = 0;
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, o] of Object.entries(methods)) {
        if (!path.startsWith("/v1/") || path === "/v1/openapi.json") {
          expect(o.responses[429], `${method} ${path}`).toBeUndefined();
          continue;
        }
        operations++;
        expect(codes(o, 429), `${method} ${path}`).toEqual(["rate_limited"]);
        expect(Object.keys(o.responses[429].headers ?? {}), `${method} ${path}`).toEqual(expect.arrayContaining(["Retry-After", "RateLimit-Policy", "RateLimit"]));
        const success = Object.entries(o.responses).find(([status]) => status.startsWith("2"))![1];
        expect(Object.keys(success.headers ?? {}), `${method} ${path}`).toEqual(expect.arrayContaining(["RateLimit-Policy", "RateLimit"]));
        expect(o.responses[401].headers, `${method} ${path}`).not.toHaveProperty("RateLimit");
      }
    }
    expect(operations).toBeGreaterThanOrEqual(50);
    const headers = (doc.components as { headers: Record<string, { description: string }> }).headers;
    expect(headers.RateLimitPolicy.description).toContain('"workspace";q=');
    expect(headers.RateLimit.description).toContain(";r=");
  });

  it("enumerates list parameters, lifecycle enums and typed bulk results", () => {
    const list = op("/v1/contexts", "get").parameters!;
    const named = (n: string) => list.find((p) => p.name === n);
    expect(named("filter[status][eq]")?.schema.enum).toEqual(["active", "completed", "archived"]);
    expect(named("filter[freshness][in]")).toBeDefined();
    expect((named("sort")?.schema.items as { enum: string[] }).enum).toEqual(expect.arrayContaining(["name", "-createdAt"]));
    const target = op("/v1/rules/{ruleId}/status/{targetStatus}", "put").parameters!.find((p) => p.name === "targetStatus");
    expect(target?.schema.enum).toEqual(["active", "inactive"]);
    const include = op("/v1/records/{recordId}", "get").parameters!.find((p) => p.name === "include");
    expect((include?.schema.items as { enum: string[] }).enum).toEqual(["model", "lineage"]);
    const schemas = (doc.components as { schemas: Record<string, { properties: { items: { items: { properties: { data: unknown } } } } }> }).schemas;
    expect(schemas.ContributionBulkResponse.properties.items.items.properties.data).toEqual({ $ref: "#/components/schemas/Contribution" });
    expect(op("/v1/contexts/{contextId}", "patch")).toMatchObject({ requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/ContextPatch" } } } } });
  });

  it("describes the four webhook events and /healthz", () => {
    expect(Object.keys(doc.webhooks as object).sort()).toEqual(["context.resolved", "context.stale", "context.status_changed", "evaluation.changed"]);
    expect(op("/healthz", "get")).toMatchObject({ security: [] });
  });
});

describe("/docs", () => {
  it("serves human-readable docs from local assets only", async () => {
    const page = await h.request("GET", "/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    const srcs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(srcs.length).toBeGreaterThan(2);
    for (const src of srcs) {
      expect(src.startsWith("/docs/"), src).toBe(true);
      const asset = await h.request("GET", src);
      expect(asset.status, src).toBe(200);
    }
    expect(page.headers.get("content-security-policy")).toMatch(/default-src 'self'/);
    const init = await h.request("GET", "/docs/init.js");
    expect(init.text).toContain("/v1/openapi.json");
    expect((await h.request("GET", "/docs/../package.json")).status).toBe(404);
    expect((await h.request("GET", "/docs/index.html")).status).toBe(404);
  });
});
