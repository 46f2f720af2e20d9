import { execa, type ResultPromise } from "execa";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pathParams, ROUTES, type RouteSpec } from "../../src/contract/routes.js";
import { issueToken } from "../../src/engine/auth/index.js";
import { openSqliteDatabase } from "../../src/engine/store/db.js";
import { BIN } from "../helpers/cli.js";
import { rawRequest } from "../server/raw-http.js";
import { bodyFor, fillPath } from "../server/route-fill.js";
import { seedWorkspace, type Seeded } from "../server/seed.js";
import type { Harness } from "../server/harness.js";

/**
 * A seeded, bounded fuzz run of every route against a fresh `ddsctl serve`: valid
 * requests, mutated ones, deep JSON, forged cursors/tokens/keys, malformed bodies, and
 * parser-level malformations over raw sockets. Every answer must be below 500 and, when
 * not a success, problem+json whose (status, code) the OpenAPI document declares for the
 * operation. The same seed sends the same requests (FUZZ_SEED overrides it).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 11);
const PER_ROUTE = 50;

/** mulberry32: a small seeded PRNG, so a failure can be replayed exactly. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] };
}
const rnd = prng(SEED);

let dir: string;
let proc: ResultPromise;
let origin: string;
let admin: string;
let seeded: Seeded;
let doc: { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { allOf?: { properties?: { code?: { enum: string[] } } }[] } }> }> }>> };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ddsctl-fuzz-"));
  const db = join(dir, "dds.db");
  const store = openSqliteDatabase(db);
  admin = (await issueToken(store, { workspace: "default", scopes: ["admin"] })).token;
  await store.close();
  proc = execa("node", [BIN, "serve", "--port", "0", "--quiet", "--local", db], { reject: false, env: { NO_COLOR: "1" } });
  let seen = "";
  origin = await new Promise<string>((resolve) => {
    proc.stderr!.on("data", (d: Buffer) => {
      seen += d.toString();
      const m = /listening on (http:\/\/\S+)\/v1/.exec(seen);
      if (m) resolve(m[1]);
    });
  });
  seeded = await seedWorkspace({ origin } as Harness, admin);
  doc = (await (await fetch(`${origin}/v1/openapi.json`)).json()) as typeof doc;
});

afterAll(async () => {
  await seeded?.client.close();
  proc?.kill("SIGTERM");
  await proc;
  rmSync(dir, { recursive: true, force: true });
});

type Kind = "valid" | "mutated" | "deep" | "forged" | "malformed" | "raw";
const tally: Record<Kind, Record<string, number>> = { valid: {}, mutated: {}, deep: {}, forged: {}, malformed: {}, raw: {} };
const failures: string[] = [];

const deepText = (n: number) => (rnd.next() < 0.5 ? '{"a":'.repeat(n) + "1" + "}".repeat(n) : "[".repeat(n) + "1" + "]".repeat(n));
const JUNK = ["", "null", "[]", "1", '"x"', "{", '{"a":', "\u0000", "{\"__proto__\":{}}", '{"x":1e309}', "\ud800", "true", '{"items":null}', "𝔘𝔫𝔦"];

/** A random JSON value of bounded size. */
function junkValue(depth = 0): unknown {
  const r = rnd.int(depth > 3 ? 5 : 8);
  if (r === 0) return null;
  if (r === 1) return rnd.next() < 0.5;
  if (r === 2) return rnd.pick([0, -1, 1e308, -0.5, 2 ** 53 + 1, 42]);
  if (r === 3) return rnd.pick(["", "x", "01900000-0000-7000-8000-000000000000", "a".repeat(300), "constructor", "💥", "DROP TABLE models"]);
  if (r === 4) return "s";
  if (r === 5) return Array.from({ length: rnd.int(4) }, () => junkValue(depth + 1));
  return Object.fromEntries(Array.from({ length: rnd.int(4) }, () => [rnd.pick(["name", "data", "items", "metadata", "x", "expression", "fields", "type", "url"]), junkValue(depth + 1)]));
}

/** The valid body with one mutation: a key dropped, a value swapped for junk, or an unknown key. */
function mutate(body: unknown): unknown {
  if (body === undefined || body === null || typeof body !== "object") return junkValue();
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  const keys = Object.keys(copy);
  const r = rnd.int(4);
  if (r === 0 && keys.length > 0) delete copy[rnd.pick(keys)];
  else if (r === 1 && keys.length > 0) copy[rnd.pick(keys)] = junkValue();
  else if (r === 2) copy[rnd.pick(["bogus", "__proto__", "constructor"])] = junkValue();
  else return junkValue();
  return copy;
}

function mutatePath(path: string, route: RouteSpec): string {
  const params = pathParams(route.path);
  if (params.length === 0) return path;
  const bad = rnd.pick(["x", "01900000-0000-7000-8000-000000000000", "%00", "%2e%2e", "A".repeat(500), "%F0%9F%92%A5", "01900000-0000-7000-8000-00000000000Z", "NaN", "%25"]);
  const segments = path.split("/");
  const i = rnd.int(segments.length - 2) + 2;
  segments[i] = bad;
  return segments.join("/");
}

function mutateQuery(route: RouteSpec): string {
  const options = [
    "limit=0", "limit=501", "limit=abc", "limit=-1", "limit=1e3", "sort=bogus", "sort=-", "sort=,,,", "filter[bogus][eq]=1", "filter[name][like]=x",
    "filter[metadata.a b][eq]=1", "filter[metadata.__proto__][eq]=1", "filter[createdAt][gt]=yesterday", "filter[version][gt]=NaN", "include=everything",
    "filter[required][eq]=maybe", "x=1", "filter[status][in]=,,", "filter[name]=x", "filter[=1", "limit=1&limit=2", "%ZZ=1",
  ];
  return Array.from({ length: 1 + rnd.int(3) }, () => rnd.pick(options)).join("&");
}

const cursorOf = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

interface Sent {
  kind: Kind;
  route: RouteSpec;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The path still names this route's operation, so its declared codes apply. */
  sameOperation: boolean;
}

function requestsFor(route: RouteSpec): Sent[] {
  const path = fillPath(route, seeded);
  const valid = bodyFor(route, seeded);
  const auth = { authorization: `Bearer ${admin}`, "content-type": "application/json" };
  const body = (v: unknown) => (route.method === "GET" ? undefined : JSON.stringify(v));
  const out: Sent[] = [];
  const add = (kind: Kind, p: string, b: string | undefined, headers: Record<string, string> = auth, sameOperation = true) => out.push({ kind, route, method: route.method, path: p, headers, body: b, sameOperation });
  for (let i = 0; i < PER_ROUTE; i++) {
    switch (i % 5) {
      case 0:
        add("valid", path + (route.query.kind === "list" && rnd.next() < 0.5 ? `?limit=${1 + rnd.int(5)}&sort=-createdAt`.replace("-createdAt", route.query.list === "contributions" ? "-receivedAt" : route.query.list === "evaluations" ? "-computedAt" : "-createdAt") : ""), body(valid));
        break;
      case 1: {
        const r = rnd.int(3);
        if (r === 0) add("mutated", mutatePath(path, route), body(valid), auth, false);
        else if (r === 1) add("mutated", `${path}?${mutateQuery(route)}`, body(valid));
        else add("mutated", path, route.method === "GET" ? undefined : JSON.stringify(mutate(valid)));
        break;
      }
      case 2: {
        const n = rnd.pick([100, 1000, 5000, 10_000]);
        const where = rnd.pick(["metadata", "data", "expression", "items", "x"]);
        add("deep", path, route.method === "GET" ? undefined : `{"${where}":${deepText(n)}}`);
        break;
      }
      case 3: {
        const r = rnd.int(4);
        if (r === 0 && route.query.kind === "list") add("forged", `${path}?cursor=${cursorOf(rnd.pick([[true, "x"], [{}, "x"], [false, null], [[], []], [[1], "x"], ["a", "b"], [1, 2, 3]]))}`, body(valid));
        else if (r === 1) add("forged", path, body(valid), { ...auth, authorization: rnd.pick(["Bearer dds_forged", "Bearer", "Basic YTpi", `Bearer ${admin}x`, "Bearer  " + "a".repeat(5000)]) });
        else if (r === 2) add("forged", path, body(valid), { ...auth, "idempotency-key": rnd.pick(["", "k".repeat(300), "fuzz-key", "ü"]), "x-request-id": rnd.pick(["", "x".repeat(300), "ok-id", "a b"]) });
        else add("forged", `${path}?cursor=${rnd.pick(["%00", "a.b", "....", "x".repeat(5000), cursorOf(["x", "y"]) + ".AAAAAAAAAAAAAAAAAAAAAA"])}`, body(valid), auth, true);
        break;
      }
      default: {
        const r = rnd.int(3);
        if (r === 0) add("malformed", path, route.method === "GET" ? undefined : rnd.pick(JUNK));
        else if (r === 1) add("malformed", path, route.method === "GET" ? undefined : JSON.stringify(valid ?? {}).slice(0, 5), { ...auth, "content-type": "text/plain" });
        else add("malformed", path, route.method === "GET" ? undefined : `{"name":"\u0000${"é".repeat(rnd.int(50))}","metadata":{"n":1e309}}`);
      }
    }
  }
  return out;
}

const declared = (route: RouteSpec, status: number): string[] | undefined =>
  doc.paths[`/v1${route.path}`]?.[route.method.toLowerCase()]?.responses[String(status)]?.content?.["application/problem+json"]?.schema.allOf?.[1]?.properties?.code?.enum;

function record(kind: Kind, status: number, what: string, ok: boolean, why: string): void {
  tally[kind][status] = (tally[kind][status] ?? 0) + 1;
  if (!ok) failures.push(`${kind} ${what} → ${status}: ${why}`);
}

describe(`fuzzing every route (seed ${SEED})`, () => {
  it("never answers 5xx, and every refusal is a declared problem+json", async () => {
    for (const route of ROUTES) {
      for (const sent of requestsFor(route)) {
        const res = await fetch(`${origin}${sent.path}`, { method: sent.method, headers: sent.headers, body: sent.body });
        const text = await res.text();
        const type = res.headers.get("content-type") ?? "";
        const what = `${sent.method} ${sent.path.slice(0, 80)}`;
        let why = "";
        if (res.status >= 500) why = `server error ${text.slice(0, 200)}`;
        else if (res.status >= 400) {
          let code: string | undefined;
          try {
            code = (JSON.parse(text) as { code?: string }).code;
          } catch {
            code = undefined;
          }
          if (!type.startsWith("application/problem+json") || !code) why = `not problem+json: ${type} ${text.slice(0, 100)}`;
          // A replay is the answer of whichever request first used the key (keys are per
          // workspace, not per route), so only a fresh answer is held to this operation's codes.
          else if (sent.sameOperation && res.status !== 405 && res.headers.get("idempotent-replayed") !== "true") {
            const codes = declared(route, res.status);
            if (!codes?.includes(code)) why = `${res.status} ${code} is not declared for ${route.operation} (declared: ${codes?.join(", ") ?? "none"})`;
          }
        } else if (res.status !== 204 && !type.startsWith("application/json")) why = `success without JSON: ${type}`;
        record(sent.kind, res.status, what, why === "", why);
      }
    }
    expect(failures).toEqual([]);
    // 50 requests per route, one after another: ~15 s alone, several times that while the
    // whole suite loads the machine. A time limit is not what this test is about.
  }, 300_000);

  it("parser-level malformations over raw sockets are problem+json too", async () => {
    failures.length = 0;
    const port = Number(new URL(origin).port);
    const paths = ROUTES.map((r) => `/v1${r.path.replace(/\{[^}]+\}/g, "01900000-0000-7000-8000-000000000000")}`);
    const makers = [
      (p: string) => `FOO ${p} HTTP/1.1\r\nHost: x\r\n\r\n`,
      () => "GET * HTTP/1.1\r\nHost: x\r\n\r\n",
      (p: string) => `POST ${p} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      (p: string) => `POST ${p} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}`,
      (p: string) => `POST ${p} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      (p: string) => `GET ${p} HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n`,
      (p: string) => `GET ${p} HTTP/1.1\r\nHost: x\r\nX-A: ${"a".repeat(17_000)}\r\n\r\n`,
      (p: string) => `GET ${p} HTTP/9.9\r\nHost: x\r\n\r\n`,
      (p: string) => `GET ${p}\u0001 HTTP/1.1\r\nHost: x\r\n\r\n`,
      () => "\u0016\u0003\u0001\u0000\u00a5\u0001\u0000\u0000\u00a1\u0003\u0003garbage\r\n\r\n",
    ];
    for (let i = 0; i < 200; i++) {
      const bytes = rnd.pick(makers)(rnd.pick(paths));
      const reply = await rawRequest(port, bytes);
      const ok = reply.status >= 400 && reply.status < 500 && reply.headers["content-type"] === "application/problem+json" && typeof JSON.parse(reply.body || "{}").code === "string";
      record("raw", reply.status, JSON.stringify(bytes.slice(0, 40)), ok, reply.raw.slice(0, 120));
    }
    expect(failures).toEqual([]);
  });

  it("reports what it sent and saw", () => {
    const total = Object.values(tally).reduce((n, byStatus) => n + Object.values(byStatus).reduce((a, b) => a + b, 0), 0);
    // The summary goes to the test output: counts per kind of request and status.
    console.log(`fuzz seed ${SEED}: ${total} requests over ${ROUTES.length} routes\n${JSON.stringify(tally, null, 1)}`);
    expect(total).toBeGreaterThan(ROUTES.length * PER_ROUTE);
    expect(Object.keys(tally.valid).some((s) => Number(s) < 300)).toBe(true);
  });
});
