/**
 * The studio's server, over real HTTP: the page and `/v1` on one loopback origin, the
 * session key as the only credential (nothing written to the database), refusals for a
 * foreign Host or Origin, deep links answered with the page, and `--remote` proxied with
 * the profile's token, which the page never sees.
 */
import { execa } from "execa";
import { existsSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../helpers/cli.js";
import { startServer, type Harness } from "../server/harness.js";
import { startStudioProcess, workdir, type StudioProcess, type Workdir } from "./harness.js";
import { launchBrowser } from "./browser.js";
import { issueToken } from "../../src/engine/auth/index.js";

/** A raw request (fetch cannot set Host). */
function raw(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? "GET", headers: init.headers }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

describe("ddsctl studio on a local database", () => {
  let w: Workdir;
  let studio: StudioProcess;
  beforeAll(async () => {
    w = workdir();
    await w.run(["demo", "--quiet"]);
    studio = await startStudioProcess(w);
  }, 120_000);
  afterAll(async () => {
    await studio?.stop();
    w?.cleanup();
  });
  const auth = () => ({ authorization: `Bearer ${studio.key}` });

  it("prints a loopback URL whose fragment holds a fresh session key", () => {
    expect(studio.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(studio.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("answers /v1 with the session key only, and writes no token to the database", async () => {
    const none = await raw(`${studio.origin}/v1/contexts`);
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toBe('Bearer realm="ddsctl"');
    expect((await raw(`${studio.origin}/v1/contexts`, { headers: { authorization: `Bearer ${studio.key.slice(1)}x` } })).status).toBe(401);
    const ok = await raw(`${studio.origin}/v1/contexts?limit=100`, { headers: auth() });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).data).toHaveLength(30);
    const created = await raw(`${studio.origin}/v1/contexts`, { method: "POST", headers: { ...auth(), "content-type": "application/json", origin: studio.origin }, body: '{"name":"from-studio"}' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toMatch(/^\/v1\/contexts\//);
    // The local user acts, as with the CLI: no token exists or was created.
    expect(JSON.parse(await w.run(["tokens", "list", "--json", "--quiet"]))).toEqual({ data: [] });
  });

  it("refuses a foreign Host (DNS rebinding) and a write from a foreign Origin", async () => {
    const rebound = await raw(`${studio.origin}/v1/contexts`, { headers: { ...auth(), host: "evil.example:80" } });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).code).toBe("forbidden");
    const page = await raw(`${studio.origin}/cases`, { headers: { host: "evil.example" } });
    expect(page.status).toBe(403);
    const cross = await raw(`${studio.origin}/v1/contexts`, { method: "POST", headers: { ...auth(), "content-type": "application/json", origin: "https://evil.example" }, body: "{}" });
    expect(cross.status).toBe(403);
    expect((await raw(`${studio.origin.replace("127.0.0.1", "localhost")}/cases`)).status).toBe(200);
  });

  it("serves the page for every deep link, its files, and a 404 for a missing file", async () => {
    for (const path of ["/", "/cases", "/cases/abc/evaluations/def?input=Loan.dti", "/rules/xyz"]) {
      const r = await raw(`${studio.origin}${path}`);
      expect(r.status).toBe(200);
      expect(r.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(r.body).toContain('<script type="module" src="/app.js">');
    }
    const app = await raw(`${studio.origin}/app.js`);
    expect(app.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    // Served from local files only: nothing is loaded from another host.
    expect(app.body).not.toMatch(/(?:from|import\()\s*["']https?:/);
    expect((await raw(`${studio.origin}/cases`)).body).not.toMatch(/(?:src|href)="https?:/);
    expect((await raw(`${studio.origin}/nope.js`)).status).toBe(404);
    expect((await raw(`${studio.origin}/..%2f..%2fpackage.json`)).status).toBe(404);
  });

  it("serves the --tests suites to the key holder only", async () => {
    expect((await raw(`${studio.origin}/studio/tests.json`)).status).toBe(401);
    expect(JSON.parse((await raw(`${studio.origin}/studio/tests.json`, { headers: auth() })).body)).toEqual({ suites: [] });
  });

  it("refuses to start on a database that does not exist, and does not create it", async () => {
    const missing = join(w.dir, "none", "dds.db");
    const r = await execa("node", [BIN, "--local", missing, "studio", "--port", "0"], { reject: false, env: { ...w.env, DDS_DB: "" } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`no database at ${missing}: create one with ddsctl demo`);
    expect(existsSync(missing)).toBe(false);
  });
});

describe("ddsctl studio --host 0.0.0.0", () => {
  let w: Workdir;
  let studio: StudioProcess;
  beforeAll(async () => {
    w = workdir();
    await w.run(["contexts", "create", "--name", "lan-case", "--quiet"]);
  }, 60_000);
  afterAll(async () => {
    await studio?.stop();
    w?.cleanup();
  });

  it("refuses to start without --allow-host, saying what to add (exit 2)", async () => {
    const r = await execa("node", [BIN, "studio", "--host", "0.0.0.0", "--port", "0"], { cwd: w.dir, env: w.env, reject: false });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/error: --host 0\.0\.0\.0 listens on every interface, .*add --allow-host <name>/);
  });

  it("with --allow-host, prints that address and answers requests naming it (and loopback), not others", async () => {
    // Every request goes to 127.0.0.1; only the Host header names the LAN address.
    studio = await startStudioProcess(w, ["--host", "0.0.0.0", "--allow-host", "192.168.1.20"]);
    const { port } = new URL(studio.origin);
    expect(studio.origin).toBe(`http://192.168.1.20:${port}`);
    const local = `http://127.0.0.1:${port}`;
    const lan = { host: `192.168.1.20:${port}` };
    expect((await raw(`${local}/cases`, { headers: lan })).status).toBe(200);
    const listed = await raw(`${local}/v1/contexts`, { headers: { ...lan, authorization: `Bearer ${studio.key}` } });
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.body).data.map((c: { name: string }) => c.name)).toEqual(["lan-case"]);
    expect((await raw(`${local}/cases`)).status).toBe(200);
    const other = await raw(`${local}/cases`, { headers: { host: `192.168.1.21:${port}` } });
    expect(other.status).toBe(403);
    expect(JSON.parse(other.body).detail).toContain("--allow-host");
  });
});

describe("ddsctl studio --remote", () => {
  let h: Harness;
  let w: Workdir;
  let studio: StudioProcess;
  let token: string;
  beforeAll(async () => {
    h = await startServer();
    token = await h.token("admin", "remote-ws");
    w = workdir();
    studio = await startStudioProcess(w, ["--remote", `${h.origin}/v1`, "--token", token]);
  }, 60_000);
  afterAll(async () => {
    await studio?.stop();
    w?.cleanup();
    await h?.close();
  });

  it("proxies /v1 with the profile's token: the page sends only its session key", async () => {
    const created = await raw(`${studio.origin}/v1/contexts`, { method: "POST", headers: { authorization: `Bearer ${studio.key}`, "content-type": "application/json", origin: studio.origin }, body: '{"name":"over-the-proxy","type":"mortgage"}' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toMatch(/^\/v1\/contexts\/[0-9a-f-]{36}$/);
    const listed = await raw(`${studio.origin}/v1/contexts?filter[name]=over-the-proxy`, { headers: { authorization: `Bearer ${studio.key}` } });
    expect(JSON.parse(listed.body).data.map((c: { name: string }) => c.name)).toEqual(["over-the-proxy"]);
    // It landed in the token's workspace on the remote service.
    const direct = await h.request("GET", "/v1/contexts", { token });
    expect(direct.json.data.map((c: { name: string }) => c.name)).toEqual(["over-the-proxy"]);
  });

  it("refuses the remote token itself, or no key: only the session key opens the proxy", async () => {
    expect((await raw(`${studio.origin}/v1/contexts`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    const none = await raw(`${studio.origin}/v1/contexts`);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body).detail).toContain("studio session key");
  });

  it("passes the service's problems through unchanged", async () => {
    const r = await raw(`${studio.origin}/v1/contexts/not-a-uuid`, { headers: { authorization: `Bearer ${studio.key}` } });
    expect(r.status).toBe(404);
    expect(r.headers["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(r.body).code).toBe("not_found");
  });

  it("needs a token to start, and says so", async () => {
    const r = await execa("node", [BIN, "--remote", `${h.origin}/v1`, "studio", "--port", "0"], { reject: false, env: { ...w.env, DDS_DB: "", DDS_API_TOKEN: "" } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("needs an API token");
  });
});

describe("ddsctl studio --remote, over its token's rate limit", () => {
  let h: Harness;
  let w: Workdir;
  let studio: StudioProcess;
  beforeAll(async () => {
    h = await startServer();
    // Two reads a day: the page's first view asks for more.
    const { token } = await issueToken(h.store, { workspace: "limited-ws", scopes: ["admin"], rate: "2/1d" });
    w = workdir();
    studio = await startStudioProcess(w, ["--remote", `${h.origin}/v1`, "--token", token]);
  }, 60_000);
  afterAll(async () => {
    await studio?.stop();
    w?.cleanup();
    await h?.close();
  });

  it("passes the 429 through with its Retry-After and RateLimit headers, and the page shows it as a message", async () => {
    let refused: Awaited<ReturnType<typeof raw>> | undefined;
    for (let i = 0; i < 3 && !refused; i++) {
      const r = await raw(`${studio.origin}/v1/models`, { headers: { authorization: `Bearer ${studio.key}` } });
      if (r.status === 429) refused = r;
    }
    expect(refused?.headers["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(refused!.body).code).toBe("rate_limited");
    expect(Number(refused!.headers["retry-after"])).toBeGreaterThan(0);
    expect(refused!.headers["ratelimit-policy"]).toContain('"token";q=2;w=86400');
    const browser = await launchBrowser();
    try {
      const page = await browser.browser.newPage();
      await page.goto(studio.url);
      const alert = page.getByRole("alert").first();
      await alert.waitFor();
      expect(await alert.textContent()).toContain("rate limit of 2/d");
      // The page itself still stands: its navigation is there to try again later.
      expect(await page.locator("nav, header").count()).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
